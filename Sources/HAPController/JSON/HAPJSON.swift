/// A JSON value as HAP bodies carry it (HAP spec §6.7, `application/hap+json`).
///
/// Integers are kept exact: `int` for every integer that fits `Int64`, `uint` for the integers between
/// `Int64.max + 1` and `UInt64.max` (uint64 characteristic values and iids can exceed 2^53, where a
/// `Double` would round them; docs/hap-notes.md §4.1). Numbers with a fraction or an exponent are `double`.
/// Objects keep their members in the order they were read or built.
///
/// Parse with `HAPJSON(parsing:)`; write compact JSON with `encoded()` (HAPJSON+Encoding.swift).
public enum HAPJSON: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case string(String)
    case array([HAPJSON])
    case object(HAPJSONObject)

    /// The member `key` of an object (the last one when a key repeats); nil for other values.
    public subscript(key: String) -> HAPJSON? {
        guard case .object(let o) = self else { return nil }
        return o[key]
    }

    /// The element at `index` of an array; nil for other values and out-of-range indices.
    public subscript(index: Int) -> HAPJSON? {
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

    /// The value as a Double, for every number (large integers round to the nearest Double).
    public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .uint(let u): return Double(u)
        case .double(let d): return d
        default: return nil
        }
    }

    /// Whether the value is a number of any kind.
    public var isNumber: Bool { doubleValue != nil }

    /// The text of a string; nil for other values.
    public var stringValue: String? {
        guard case .string(let s) = self else { return nil }
        return s
    }

    /// The elements of an array; nil for other values.
    public var arrayValue: [HAPJSON]? {
        guard case .array(let a) = self else { return nil }
        return a
    }

    /// The members of an object; nil for other values.
    public var objectValue: HAPJSONObject? {
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

/// A JSON object whose members keep their order. Equality compares the members in order.
///
/// HAP never repeats a key; when a body does, every member is kept and lookups see the last one, as most
/// JSON readers do.
public struct HAPJSONObject: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    /// One `"key": value` member.
    public struct Member: Sendable, Hashable {
        public var key: String
        public var value: HAPJSON

        public init(key: String, value: HAPJSON) {
            self.key = key
            self.value = value
        }
    }

    /// The members in order.
    public private(set) var members: [Member]

    public init(_ members: [Member] = []) { self.members = members }

    public init(dictionaryLiteral elements: (String, HAPJSON)...) {
        members = elements.map { Member(key: $0.0, value: $0.1) }
    }

    /// The value of `key` (the last one when it repeats). Setting replaces the last member with that key,
    /// or appends one; setting nil removes every member with that key.
    public subscript(key: String) -> HAPJSON? {
        get { members.last { $0.key == key }?.value }
        set {
            guard let newValue else {
                members.removeAll { $0.key == key }
                return
            }
            if let i = members.lastIndex(where: { $0.key == key }) {
                members[i].value = newValue
            } else {
                members.append(Member(key: key, value: newValue))
            }
        }
    }

    /// The keys in order.
    public var keys: [String] { members.map(\.key) }

    public var startIndex: Int { members.startIndex }
    public var endIndex: Int { members.endIndex }
    public subscript(position: Int) -> Member { members[position] }

    /// Appends a member without looking for an existing one with the same key (the parser's path).
    public mutating func append(_ key: String, _ value: HAPJSON) {
        members.append(Member(key: key, value: value))
    }
}

// Not ExpressibleByNilLiteral: `nil` must always mean "no value" (Optional), never JSON `null`.
extension HAPJSON: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: HAPJSON...) { self = .array(elements) }

    /// An object literal; member order is the literal's order.
    public init(dictionaryLiteral elements: (String, HAPJSON)...) {
        self = .object(HAPJSONObject(elements.map { HAPJSONObject.Member(key: $0.0, value: $0.1) }))
    }
}

extension HAPJSON {
    /// An integer value: `int` when it fits Int64, else `uint`.
    public init(_ value: UInt64) { self = Int64(exactly: value).map(HAPJSON.int) ?? .uint(value) }

    /// An integer value.
    public init(_ value: Int) { self = .int(Int64(value)) }
}
