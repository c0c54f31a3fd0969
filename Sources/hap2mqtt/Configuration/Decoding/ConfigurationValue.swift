import HomeModel
import JSON

/// One value of the configuration with what an error about it must say: its dotted key path and where
/// it was set. The typed readers follow YAML's core schema where it matters to users (`5` is a number,
/// `3.1.1` is text, `true`/`yes`/`on` are booleans) and also accept the same text quoted, so that an
/// environment variable, which is always text, reads like the file.
struct ConfigurationValue {
    let node: YAMLNode
    /// The dotted key path (`homekit.poll_interval`, `home.rooms[1]`).
    let key: String
    let source: ConfigurationLocation.Source
    let decoder: ConfigurationDecoder

    /// Where the value was set: its position in the file, or the environment variable.
    var location: ConfigurationLocation {
        switch source {
        case .file: return ConfigurationLocation(source: source, mark: node.mark)
        case .environment: return ConfigurationLocation(source: source, mark: nil)
        }
    }

    /// The error for a value of the wrong kind; `expected` completes "expected …".
    func wrongType(_ expected: String) -> ConfigurationError {
        .wrongType(location, key: key, expected: expected, got: node.kindDescription)
    }

    /// The error for a value of the right kind that is not allowed; `problem` is the rest of the line.
    func invalid(_ problem: String) -> ConfigurationError { .invalidValue(location, key: key, problem: problem) }

    /// Any scalar as its text (`5` and `"5"` both give `5`).
    /// - Throws: `wrongType` for a list or a mapping.
    func text() throws(ConfigurationError) -> String {
        guard let text = node.scalarText else { throw wrongType("text") }
        return text
    }

    /// A scalar's text that is not empty.
    /// - Throws: `wrongType` for a list or a mapping, `invalidValue` for empty text.
    func nonEmptyText() throws(ConfigurationError) -> String {
        let text = try text()
        guard !text.isEmpty else { throw invalid("must not be empty") }
        return text
    }

    /// `true`/`false`, also `yes`/`no` and `on`/`off` (YAML 1.1, which many files still use), any case.
    /// - Throws: `wrongType` for anything else.
    func bool() throws(ConfigurationError) -> Bool {
        switch node.scalarText?.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: throw wrongType("true or false")
        }
    }

    /// A whole decimal number.
    /// - Throws: `wrongType` (saying `expected`) for anything else.
    func integer(_ expected: String) throws(ConfigurationError) -> Int {
        guard let text = node.scalarText, let value = Int(text) else { throw wrongType(expected) }
        return value
    }

    /// A decimal number of seconds (`10`, `2.5`) within `range`, as a `Duration` rounded to the
    /// millisecond.
    /// - Throws: `wrongType` for anything that is not a finite decimal number, `invalidValue` outside
    ///   `range` (and for 0 when `range` starts at 0 but `allowsZero` is false).
    func seconds(in range: ClosedRange<Double>, allowsZero: Bool = true) throws(ConfigurationError) -> Duration {
        guard let text = node.scalarText, let seconds = Self.decimal(text) else {
            throw wrongType("a number of seconds")
        }
        if !allowsZero, seconds <= 0 { throw invalid("must be more than 0 seconds, got \(text)") }
        guard seconds >= range.lowerBound else {
            throw invalid("must be at least \(Duration.describe(range.lowerBound)), got \(text)")
        }
        guard seconds <= range.upperBound else {
            throw invalid("must be at most \(Duration.describe(range.upperBound)), got \(text)")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// The items of a list. An environment variable holds a list as YAML flow (`[Kitchen, "Living
    /// Room"]`) or as comma-separated text (`Kitchen,Living Room`).
    /// - Throws: `wrongType` for a scalar or a mapping in the file; `syntax` for bad YAML in a variable.
    func list() throws(ConfigurationError) -> [ConfigurationValue] {
        let node = try parsedFromEnvironment(startingWith: "[") ?? self.node
        switch node.content {
        case .sequence(let items):
            return items.enumerated().map { child($0.element, key: "\(key)[\($0.offset)]") }
        case .scalar(let text, _) where isFromEnvironment:
            return text.split(separator: ",").map { $0.trimmingSpaces }.filter { !$0.isEmpty }.enumerated()
                .map { child(YAMLNode(.scalar($0.element, .doubleQuoted), at: node.mark), key: "\(key)[\($0.offset)]") }
        default:
            throw wrongType("a list")
        }
    }

    /// A list of non-empty texts.
    /// - Throws: as `list()`, and `invalidValue` for an empty item.
    func texts() throws(ConfigurationError) -> [String] {
        var texts: [String] = []
        for item in try list() { texts.append(try item.nonEmptyText()) }
        return texts
    }

    /// The entries of a mapping whose keys are data (accessory ids), in the order written. Each key
    /// comes as a value of its own (its text, at the key's position) so that an error about it points
    /// at the key. An environment variable holds the mapping as YAML flow (`{"AA:…/2": {room: Hall}}`).
    /// - Throws: `wrongType` for a scalar or a list, `duplicateKey` for a key written twice, `syntax`
    ///   for bad YAML in a variable.
    func entries() throws(ConfigurationError) -> [(key: ConfigurationValue, value: ConfigurationValue)] {
        let node = try parsedFromEnvironment(startingWith: "{") ?? self.node
        guard case .mapping(let entries) = node.content else { throw wrongType("a mapping") }
        var firstLines: [String: Int] = [:]
        var result: [(key: ConfigurationValue, value: ConfigurationValue)] = []
        for entry in entries {
            let childKey = "\(key)[\(entry.key.jsonQuoted)]"
            let keyValue = child(YAMLNode(.scalar(entry.key, .plain), at: entry.keyMark), key: childKey)
            if let first = firstLines[entry.key] {
                throw .duplicateKey(keyValue.location, key: childKey, firstLine: first)
            }
            firstLines[entry.key] = entry.keyMark.line
            result.append((keyValue, child(entry.value, key: childKey)))
        }
        return result
    }

    /// The value as a section of fixed keys (never overridden from the environment on its own).
    /// - Throws: as `ConfigurationSection.init`.
    func section() throws(ConfigurationError) -> ConfigurationSection {
        try ConfigurationSection(path: key, node: node, source: source, environmentPrefix: nil, decoder: decoder)
    }

    /// A value inside this one, from the same source.
    func child(_ node: YAMLNode, key: String) -> ConfigurationValue {
        ConfigurationValue(node: node, key: key, source: source, decoder: decoder)
    }

    private var isFromEnvironment: Bool {
        if case .environment = source { return true }
        return false
    }

    /// An environment variable's text read as YAML when it opens a flow collection.
    private func parsedFromEnvironment(startingWith opener: Character) throws(ConfigurationError) -> YAMLNode? {
        guard case .environment(let name) = source, let text = node.scalarText,
            text.trimmingSpaces.first == opener
        else { return nil }
        do throws(YAMLError) {
            return try YAMLReader.parse(text, source: name)
        } catch {
            throw .syntax(error)
        }
    }

    /// A finite decimal number: digits with an optional sign, fraction and exponent. Swift's
    /// `Double(_:)` alone would also take `nan`, `inf` and hexadecimal.
    private static func decimal(_ text: String) -> Double? {
        guard text.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }),
            let value = Double(text), value.isFinite
        else { return nil }
        return value
    }
}

extension Substring {
    var trimmingSpaces: String { String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()) }
}

extension String {
    var trimmingSpaces: String { self[...].trimmingSpaces }
}

extension Duration {
    /// `1 second`, `2.5 seconds`: for messages.
    static func describe(_ seconds: Double) -> String {
        "\(CharacteristicValue.format(seconds)) second" + (seconds == 1 ? "" : "s")
    }
}
