/// Typed reading of the members of a JSON object that the program stored itself (the pairing files,
/// `slugs.json`, `health.json`): each accessor names the member it could not read, so a damaged file's
/// error says which field is wrong without showing its value (it may be a key).
public struct JSONFields: Sendable {
    /// The object read.
    public let object: JSONObject

    /// The members of `value`.
    /// - Throws: `JSONFieldError.notAnObject` when `value` is not an object.
    public init(_ value: JSONValue) throws(JSONFieldError) {
        guard let object = value.objectValue else { throw .notAnObject }
        self.object = object
    }

    /// The member `key`, which must be there and not null.
    /// - Throws: `JSONFieldError.missing` when there is no such member or it is null.
    public func value(_ key: String) throws(JSONFieldError) -> JSONValue {
        guard let value = object[key], !value.isNull else { throw .missing(key) }
        return value
    }

    /// The string at `key`.
    /// - Throws: `.missing`, or `.wrongType` for another kind of value.
    public func string(_ key: String) throws(JSONFieldError) -> String {
        guard let text = try value(key).stringValue else { throw .wrongType(key) }
        return text
    }

    /// The string at `key`, nil when it is absent or null.
    /// - Throws: `.wrongType` for another kind of value.
    public func optionalString(_ key: String) throws(JSONFieldError) -> String? {
        guard let member = object[key], !member.isNull else { return nil }
        guard let text = member.stringValue else { throw .wrongType(key) }
        return text
    }

    /// The Bool at `key`.
    /// - Throws: `.missing`, or `.wrongType` for another kind of value.
    public func bool(_ key: String) throws(JSONFieldError) -> Bool {
        guard let flag = try value(key).boolValue else { throw .wrongType(key) }
        return flag
    }

    /// The number at `key` as a Double.
    /// - Throws: `.missing`, or `.wrongType` for another kind of value.
    public func double(_ key: String) throws(JSONFieldError) -> Double {
        guard let number = try value(key).doubleValue else { throw .wrongType(key) }
        return number
    }

    /// The whole number at `key` as `T` (e.g. a `UInt16` port).
    /// - Throws: `.missing`, `.wrongType` for a value that is not a whole number, `.outOfRange` for one
    ///   that `T` cannot hold.
    public func integer<T: FixedWidthInteger>(_ key: String, as _: T.Type = T.self) throws(JSONFieldError) -> T {
        let member = try value(key)
        if let signed = member.int64Value {
            guard let exact = T(exactly: signed) else { throw .outOfRange(key) }
            return exact
        }
        if let unsigned = member.uint64Value {
            guard let exact = T(exactly: unsigned) else { throw .outOfRange(key) }
            return exact
        }
        throw member.isNumber && member.doubleValue.map { $0.rounded() == $0 } == true
            ? .outOfRange(key) : .wrongType(key)
    }
}

/// Why a member of a stored JSON object could not be read; prints as the short reason that follows a
/// file name in an error, e.g. `no "host"` or `"port" is out of range`.
public enum JSONFieldError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text is JSON but not an object.
    case notAnObject
    /// The member is absent or null.
    case missing(String)
    /// The member has another kind of value than the one expected.
    case wrongType(String)
    /// The member is a whole number that does not fit its field.
    case outOfRange(String)
    /// The member has the right kind but an impossible value; `reason` says why, without the value.
    case invalid(String, reason: String)

    public var description: String {
        switch self {
        case .notAnObject: return "not a JSON object"
        case .missing(let key): return "no \"\(key)\""
        case .wrongType(let key): return "\"\(key)\" has the wrong type"
        case .outOfRange(let key): return "\"\(key)\" is out of range"
        case .invalid(let key, let reason): return "\"\(key)\": \(reason)"
        }
    }
}
