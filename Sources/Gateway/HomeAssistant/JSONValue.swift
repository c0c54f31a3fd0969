internal import Foundation

/// A JSON document as a Sendable tree: what a Home Assistant discovery config is built from before it is
/// encoded once, with sorted keys, into the retained payload.
public enum JSONValue: Sendable, Hashable, Encodable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// A JSON string.
    case string(String)
    /// A JSON number without a fraction.
    case int(Int)
    /// A JSON number with a fraction.
    case double(Double)
    /// `true` or `false`.
    case bool(Bool)
    /// A JSON array.
    case array([JSONValue])
    /// A JSON object; written with sorted keys.
    case object([String: JSONValue])
    /// `null` (Home Assistant reads a `null` name as "use the device name").
    case null

    /// `"text"`.
    public init(stringLiteral value: String) { self = .string(value) }
    /// `42`.
    public init(integerLiteral value: Int) { self = .int(value) }
    /// `true`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// `[…]`.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// `{…}`; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    /// A number: an integer when `value` has no fraction, so that `100` is not written `100.0`.
    public static func number(_ value: Double) -> JSONValue {
        value.rounded() == value && abs(value) < 1e15 ? .int(Int(value)) : .double(value)
    }

    /// Encodes the value as the JSON it stands for.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let s): try container.encode(s)
        case .int(let i): try container.encode(i)
        case .double(let d): try container.encode(d)
        case .bool(let b): try container.encode(b)
        case .array(let a): try container.encode(a)
        case .object(let o): try container.encode(o)
        case .null: try container.encodeNil()
        }
    }

    /// The JSON text with sorted keys and unescaped slashes (topics stay readable); `{}` if encoding
    /// fails, which it cannot for finite numbers.
    public var text: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
