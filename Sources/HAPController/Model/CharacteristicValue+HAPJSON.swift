public import HomeModel
public import JSON

extension CharacteristicValue {
    /// The longest `string` value taken from an accessory, in UTF-8 bytes. HAP strings are at most 256
    /// characters (`maxLen`, HAP spec §6.3.3; 64 by default); a name of megabytes from a broken or hostile
    /// accessory would otherwise go to its name topic, its JSON, `bridge/event` and the retained
    /// `bridge/accessories`.
    public static let maximumHAPStringBytes = 4096

    /// Reads a characteristic value from HAP JSON according to the characteristic's format (HAP spec
    /// §6.3.3 Table 6-5; docs/hap-notes.md §4.1). Accessories are loose about types, so the reading is
    /// too: bools may come as `0`/`1`, integers as `21.0` (a fraction is rounded to the nearest integer),
    /// numbers as numeric strings, and `tlv8`/`data` as base64 strings. `array` and `dict` values keep
    /// their compact JSON text.
    ///
    /// - Returns: nil for JSON `null` (no value, e.g. a stateless ProgrammableSwitchEvent).
    /// - Throws: `HAPModelError.valueMismatch` when the JSON cannot be read as the format (e.g. `"abc"` for
    ///   `uint8`, `2` for `bool`, text that is not base64 for `data`), and for a string longer than
    ///   `maximumHAPStringBytes`.
    public static func decoded(fromHAP json: JSONValue, format: CharacteristicFormat) throws(HAPModelError)
        -> CharacteristicValue?
    {
        if json.isNull { return nil }
        // Made only when thrown: the value's JSON text made for every value read would be a tenth of
        // reading `/accessories`.
        var mismatch: HAPModelError { .valueMismatch(format: format, value: json.description) }
        switch format {
        case .bool:
            switch json {
            case .bool(let b): return .bool(b)
            case .string(let s):
                switch s.lowercased() {
                case "true", "1": return .bool(true)
                case "false", "0": return .bool(false)
                default: throw mismatch
                }
            default:
                guard let d = json.doubleValue, d == 0 || d == 1 else { throw mismatch }
                return .bool(d == 1)
            }
        case .uint8, .uint16, .uint32, .uint64, .int:
            switch Self.number(json) {
            case .int(let i)?: return .int(i)
            case .uint(let u)?: return .uint(u)
            case .double(let d)? where d.isFinite:
                let r = d.rounded()
                if let i = Int64(exactly: r) { return .int(i) }
                if let u = UInt64(exactly: r) { return .uint(u) }
                throw mismatch
            default: throw mismatch
            }
        case .float:
            guard let d = Self.number(json)?.doubleValue else { throw mismatch }
            return .float(d)
        case .string:
            switch json {
            case .string(let s):
                guard s.utf8.count <= maximumHAPStringBytes else {
                    throw .valueMismatch(format: format, value: "a text of \(s.utf8.count) bytes")
                }
                return .string(s)
            case .bool, .int, .uint, .double: return .string(json.description)
            default: throw mismatch
            }
        case .tlv8, .data:
            guard case .string(let s) = json else { throw mismatch }
            guard let bytes = s.isEmpty ? [] : Base64.decode(s) else { throw mismatch }
            return .data(bytes)
        case .array, .dictionary:
            return .json(json.description)
        }
    }

    /// A JSON number for `json`: numbers as they are, bools as 0 or 1, numeric strings parsed.
    private static func number(_ json: JSONValue) -> JSONValue? {
        switch json {
        case .int, .uint, .double: return json
        case .bool(let b): return .int(b ? 1 : 0)
        case .string(let s):
            let parsed = try? JSONValue(parsing: s.trimmingSpaces())
            return parsed?.isNumber == true ? parsed : nil
        default: return nil
        }
    }
}

extension JSONValue {
    /// The HAP JSON of `value` for a characteristic of `format`, as a write sends it (HAP spec §6.7.2.2):
    /// `true`/`false` for bool, integers for integer formats (a float with no fraction, or a bool, is
    /// accepted), numbers for float, text for string, base64 for `tlv8`/`data`, and the parsed JSON text
    /// for `array`/`dict`.
    ///
    /// - Throws: `HAPModelError.valueMismatch` when the value cannot be written in the format (e.g. text
    ///   for `uint8`, 21.5 for `int`, bytes for `string`, JSON text that does not parse for `dict`).
    public init(encoding value: CharacteristicValue, format: CharacteristicFormat) throws(HAPModelError) {
        // Made only when thrown (see `decoded`).
        var mismatch: HAPModelError { .valueMismatch(format: format, value: value.description) }
        switch format {
        case .bool:
            guard let b = value.boolValue else { throw mismatch }
            self = .bool(b)
        case .uint8, .uint16, .uint32, .uint64, .int:
            if case .uint(let u) = value {
                self = JSONValue(u)
            } else if let i = value.int64Value {
                self = .int(i)
            } else {
                throw mismatch
            }
        case .float:
            switch value {
            case .int(let i): self = .int(i)
            case .uint(let u): self = JSONValue(u)
            case .float(let f) where f.isFinite: self = .double(f)
            case .bool(let b): self = .int(b ? 1 : 0)
            default: throw mismatch
            }
        case .string:
            switch value {
            case .string(let s): self = .string(s)
            case .bool, .int, .uint, .float: self = .string(value.description)
            case .data, .json: throw mismatch
            }
        case .tlv8, .data:
            switch value {
            case .data(let bytes): self = .string(Base64.encode(bytes))
            case .string(let s) where s.isEmpty || Base64.decode(s) != nil: self = .string(s)
            default: throw mismatch
            }
        case .array, .dictionary:
            guard case .json(let text) = value, let parsed = try? JSONValue(parsing: text) else { throw mismatch }
            self = parsed
        }
    }
}
