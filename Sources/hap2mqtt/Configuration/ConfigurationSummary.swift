import HomeModel

/// A JSON-shaped view of settings whose objects keep their keys in the order written (a dictionary
/// would not), for `bridge/info` and for printing. Build it only from values that may be shown:
/// `Configuration.redactedSummary` puts `***` where a secret is.
indirect enum ConfigurationSummary: Sendable, Hashable, Encodable, CustomStringConvertible {
    /// One key of an object.
    struct Member: Sendable, Hashable {
        var name: String
        var value: ConfigurationSummary

        init(_ name: String, _ value: ConfigurationSummary) {
            self.name = name
            self.value = value
        }
    }

    case text(String)
    case number(Double)
    case bool(Bool)
    case list([ConfigurationSummary])
    case object([Member])

    /// A list of texts.
    static func texts(_ items: [String]) -> ConfigurationSummary { .list(items.map { .text($0) }) }

    /// The member `name` of an object.
    subscript(name: String) -> ConfigurationSummary? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.name == name }?.value
    }

    /// Compact JSON text (RFC 8259) with object keys in order; numbers without a needless fraction.
    var json: String {
        switch self {
        case .text(let text): return text.jsonQuoted
        case .number(let number): return CharacteristicValue.format(number)
        case .bool(let flag): return flag ? "true" : "false"
        case .list(let items): return "[" + items.map(\.json).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.map { "\($0.name.jsonQuoted):\($0.value.json)" }.joined(separator: ",") + "}"
        }
    }

    var description: String { json }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .text(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .number(let number):
            var container = encoder.singleValueContainer()
            if number.rounded() == number, abs(number) < 1e15 { try container.encode(Int64(number)) } else {
                try container.encode(number)
            }
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .list(let items):
            var container = encoder.unkeyedContainer()
            for item in items { try container.encode(item) }
        case .object(let members):
            var container = encoder.container(keyedBy: MemberKey.self)
            for member in members { try container.encode(member.value, forKey: MemberKey(member.name)) }
        }
    }

    private struct MemberKey: CodingKey {
        let stringValue: String
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }
}
