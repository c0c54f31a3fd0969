/// A JSON value (RFC 8259): the one JSON type of the program. HAP bodies (HAP spec §6.7,
/// `application/hap+json`), `/set` and bridge request payloads, Home Assistant discovery configs and
/// `bridge/info` are read into it or written from it.
///
/// Numbers keep what they were written as: `int` for every integer that fits `Int64`, `uint` for the
/// integers from `Int64.max + 1` to `UInt64.max` (uint64 characteristic values and iids can exceed 2^53,
/// where a `Double` would round them), `double` for numbers with a fraction or an exponent and for
/// integers beyond 64 bits. `-0` is the integer 0; `-0.0` is the double -0.0, written back as `0`.
/// Objects keep their members in the order they were read or built (`JSONObject`).
///
/// Read with `JSONValue(parsing:)` (JSONValue+Parsing.swift); write compact JSON with `encoded()` or
/// `description` (JSONValue+Encoding.swift).
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The member `key` of an object (the last one when a key repeats); nil for other values.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let o) = self else { return nil }
        return o[key]
    }

    /// The element at `index` of an array; nil for other values and out-of-range indices.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let a) = self, a.indices.contains(index) else { return nil }
        return a[index]
    }

    /// Whether the value is JSON `null`.
    public var isNull: Bool { self == .null }

    /// The value as a Bool: only `true` and `false`.
    public var boolValue: Bool? {
        guard case .bool(let b) = self else { return nil }
        return b
    }

    /// The value as an Int64: integers that fit, and doubles with no fraction inside Int64's range.
    public var int64Value: Int64? {
        switch self {
        case .int(let i): return i
        case .uint(let u): return Int64(exactly: u)
        case .double(let d): return Int64(exactly: d)
        default: return nil
        }
    }

    /// The value as a UInt64: non-negative integers, and doubles with no fraction inside UInt64's range.
    public var uint64Value: UInt64? {
        switch self {
        case .int(let i): return UInt64(exactly: i)
        case .uint(let u): return u
        case .double(let d): return UInt64(exactly: d)
        default: return nil
        }
    }

    /// The value as an Int (64-bit on the supported platforms), e.g. for `aid` and `iid`.
    public var intValue: Int? { int64Value.flatMap { Int(exactly: $0) } }

    /// The value as a Double, for every number (integers beyond 2^53 round to the nearest Double).
    public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .uint(let u): return Double(u)
        case .double(let d): return d
        default: return nil
        }
    }

    /// Whether the value is a number of any kind.
    public var isNumber: Bool {
        switch self {
        case .int, .uint, .double: return true
        default: return false
        }
    }

    /// The text of a string; nil for other values.
    public var stringValue: String? {
        guard case .string(let s) = self else { return nil }
        return s
    }

    /// The elements of an array; nil for other values.
    public var arrayValue: [JSONValue]? {
        guard case .array(let a) = self else { return nil }
        return a
    }

    /// The members of an object; nil for other values.
    public var objectValue: JSONObject? {
        guard case .object(let o) = self else { return nil }
        return o
    }

    /// A short name of the value's kind for messages: `null`, `bool`, `integer`, `number`, `string`,
    /// `array`, `object`.
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "bool"
        case .int, .uint: return "integer"
        case .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

// Not ExpressibleByNilLiteral: `nil` must always mean "no value" (Optional), never JSON `null`.
extension JSONValue: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }

    /// An object literal; member order is the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { JSONObject.Member(key: $0.0, value: $0.1) }))
    }
}

extension JSONValue {
    /// An integer value: `int` when it fits Int64, else `uint`.
    public init(_ value: UInt64) { self = Int64(exactly: value).map(JSONValue.int) ?? .uint(value) }

    /// An integer value.
    public init(_ value: Int) { self = .int(Int64(value)) }
}
