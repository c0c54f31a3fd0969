/// The catalog's tables parsed from the TSV text of `CatalogData+*.swift`, with indexes by type and name.
///
/// A row that cannot be read is left out rather than trapping; the catalog tests count the rows, so a bad
/// edit of the data shows up there.
struct CatalogTable: Sendable {
    let characteristics: [CharacteristicTypeInfo]
    let characteristicsByType: [HAPType: CharacteristicTypeInfo]
    let characteristicsByName: [String: CharacteristicTypeInfo]
    let services: [ServiceTypeInfo]
    let servicesByType: [HAPType: ServiceTypeInfo]
    let servicesByName: [String: ServiceTypeInfo]
    /// Characteristic names in the service table that the characteristic table lacks (for the tests).
    let unresolvedNames: [String]

    init(characteristicRows: String, serviceRows: String) {
        let chars = CatalogTable.rows(characteristicRows).compactMap(CatalogTable.characteristic)
            .sorted { $0.type < $1.type }
        characteristics = chars
        characteristicsByType = Dictionary(chars.map { ($0.type, $0) }, uniquingKeysWith: { first, _ in first })
        characteristicsByName = CatalogTable.nameIndex(chars.map { ($0.name, $0.slug, $0) })

        var unresolved: [String] = []
        let byName = Dictionary(chars.map { ($0.name, $0.type) }, uniquingKeysWith: { first, _ in first })
        func types(_ list: String?) -> [HAPType] {
            (list ?? "").split(separator: ",").compactMap { name in
                if let t = byName[String(name)] { return t }
                unresolved.append(String(name))
                return nil
            }
        }
        let svcs = CatalogTable.rows(serviceRows).compactMap { cols -> ServiceTypeInfo? in
            guard cols.count >= 3, let type = HAPType(cols[0]) else { return nil }
            return ServiceTypeInfo(
                type: type, name: cols[1], slug: HAPCatalog.snakeCase(cols[1]), required: types(cols[2]),
                optional: types(cols.count > 3 ? cols[3] : nil))
        }.sorted { $0.type < $1.type }
        services = svcs
        servicesByType = Dictionary(svcs.map { ($0.type, $0) }, uniquingKeysWith: { first, _ in first })
        servicesByName = CatalogTable.nameIndex(svcs.map { ($0.name, $0.slug, $0) })
        unresolvedNames = unresolved
    }

    /// Non-empty lines split at tabs.
    private static func rows(_ text: String) -> [[String]] {
        text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }

    /// Indexes entries by their lower-cased name and slug.
    private static func nameIndex<T>(_ entries: [(String, String, T)]) -> [String: T] {
        var index: [String: T] = [:]
        for (name, slug, entry) in entries {
            index[name.lowercased()] = index[name.lowercased()] ?? entry
            index[slug] = index[slug] ?? entry
        }
        return index
    }

    /// One characteristic row: type, name, format, perms[, constraints[, valid values]].
    private static func characteristic(_ cols: [String]) -> CharacteristicTypeInfo? {
        guard cols.count >= 4, let type = HAPType(cols[0]), let format = CharacteristicFormat(rawValue: cols[2])
        else { return nil }
        var constraints: [String: String] = [:]
        for pair in (cols.count > 4 ? cols[4] : "").split(separator: " ") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { constraints[String(parts[0])] = String(parts[1]) }
        }
        let valid = cols.count > 5 ? validValues(cols[5]) : []
        guard let valid else { return nil }
        return CharacteristicTypeInfo(
            type: type, name: cols[1], slug: HAPCatalog.snakeCase(cols[1]), format: format,
            permissions: Permissions(names: cols[3].split(separator: ",").map(String.init)),
            unit: constraints["unit"], minValue: constraints["minValue"].flatMap(Double.init),
            maxValue: constraints["maxValue"].flatMap(Double.init),
            minStep: constraints["minStep"].flatMap(Double.init),
            maxLength: constraints["maxLen"].flatMap { Int($0) }, validValues: valid)
    }

    /// Parses `valid=Name:int,...`, where a name may hold commas (`SecuredPhysically,Exterior:2`): pieces
    /// between commas gather until one ends in `:<integer>`, and the pair splits at that last colon.
    /// Returns nil when the text is malformed.
    static func validValues(_ field: String) -> [ValidValue]? {
        guard !field.isEmpty else { return [] }
        guard field.hasPrefix("valid=") else { return nil }
        var result: [ValidValue] = []
        var name = ""
        for piece in field.dropFirst("valid=".count).split(separator: ",", omittingEmptySubsequences: false) {
            name += name.isEmpty ? String(piece) : "," + piece
            if let colon = name.lastIndex(of: ":"), let value = Int(name[name.index(after: colon)...]) {
                result.append(ValidValue(name: String(name[..<colon]), value: value))
                name = ""
            }
        }
        guard name.isEmpty else { return nil }
        return result.sorted { $0.value < $1.value }
    }
}
