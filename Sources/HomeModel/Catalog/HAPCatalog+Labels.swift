/// The words people use for types, values and units (`CatalogData+Labels.swift`): what the web page
/// shows. Topics and payloads keep the catalog's names.
extension HAPCatalog {
    /// The label of a service type ("Light" for Lightbulb, "Blind" for WindowCovering); the catalog name
    /// split into words for a type without its own, the short type for one the catalog lacks.
    public static func serviceLabel(_ type: HAPType) -> String {
        labels.services[type] ?? service(type).map { LabelWords.words($0.name) } ?? type.shortForm
    }

    /// The label of a characteristic type ("Temperature" for CurrentTemperature, "Serial number").
    public static func characteristicLabel(_ type: HAPType) -> String {
        labels.characteristics[type] ?? characteristic(type).map { LabelWords.words($0.name) } ?? type.shortForm
    }

    /// The labels of an enumerated characteristic's values, by value ("Locked" for 1 of LockCurrentState);
    /// empty when the type has no named values.
    public static func valueLabels(_ type: HAPType) -> [Int: String] {
        var result: [Int: String] = [:]
        for value in characteristic(type)?.validValues ?? [] { result[value.value] = LabelWords.words(value.name) }
        for (value, label) in labels.values[type] ?? [:] { result[value] = label }
        return result
    }

    /// The symbol of a HAP unit as people write it after a number (`°C`, `%`, `°`, `lx`, `s`); the unit's
    /// own name for one HAP does not define.
    public static func unitSymbol(_ unit: String) -> String {
        ["celsius": "°C", "percentage": "%", "arcdegrees": "°", "lux": "lx", "seconds": "s"][unit] ?? unit
    }

    private static let labels = LabelTable(labelTable)
}

/// The label rows, parsed once.
struct LabelTable: Sendable {
    var services: [HAPType: String] = [:]
    var characteristics: [HAPType: String] = [:]
    var values: [HAPType: [Int: String]] = [:]

    init(_ text: String) {
        for line in text.split(separator: "\n") {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard columns.count >= 3, let type = HAPType(columns[1]) else { continue }
            if columns[0] == "S" {
                services[type] = columns[2]
                continue
            }
            characteristics[type] = columns[2]
            guard columns.count > 3 else { continue }
            for pair in columns[3].split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, let value = Int(parts[0]) { values[type, default: [:]][value] = String(parts[1]) }
            }
        }
    }
}

/// CamelCase names as words.
enum LabelWords {
    /// `CurrentHeatingCoolingState` is "Current heating cooling state", `SecuredPhysically,Exterior`
    /// "Secured physically, exterior", `PM2.5Density` "PM2.5 density", `CO2LevelsNormal` "CO2 levels
    /// normal": a word starts at a capital after a lower-case letter or digit, and at the last capital of a
    /// run followed by a lower-case letter; runs of capitals (acronyms) keep their case, other words are
    /// lower-cased after the first.
    static func words(_ name: String) -> String {
        name.split(separator: ",").enumerated().map { index, part in words(part, first: index == 0) }
            .joined(separator: ", ")
    }

    private static func words(_ name: Substring, first: Bool) -> String {
        let characters = Array(name)
        var words: [String] = []
        var current = ""
        for (index, character) in characters.enumerated() {
            let previous = index > 0 ? characters[index - 1] : nil
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            let startsWord =
                character.isUppercase
                && ((previous.map { $0.isLowercase } ?? false)
                    || (previous?.isUppercase == true && next?.isLowercase == true)
                    || (previous.map { $0.isNumber } ?? false) && next?.isLowercase == true)
            if startsWord, !current.isEmpty {
                words.append(current)
                current = ""
            }
            current.append(character)
        }
        if !current.isEmpty { words.append(current) }
        return words.enumerated().map { index, word in
            let acronym = word.count > 1 && word.dropFirst().contains { $0.isUppercase || $0.isNumber }
            return (index == 0 && first) || acronym ? word : word.lowercased()
        }.joined(separator: " ")
    }
}
