internal import JSON

/// A characteristic's value as HAP carries it.
///
/// Integers keep 64-bit precision (`int` for signed formats, `uint` for values above `Int64.max`);
/// `tlv8` and `data` values are raw bytes (base64 on the wire and in MQTT payloads); `array` and
/// `dictionary` formats keep their JSON text in `json`.
public enum CharacteristicValue: Sendable, Hashable, CustomStringConvertible {
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    case float(Double)
    case string(String)
    case data([UInt8])
    case json(String)

    /// The value as a Double, for numbers and booleans (true is 1); nil otherwise.
    public var doubleValue: Double? {
        switch self {
        case .bool(let b): return b ? 1 : 0
        case .int(let i): return Double(i)
        case .uint(let u): return Double(u)
        case .float(let f): return f
        default: return nil
        }
    }

    /// The value as an Int64 when it is an integer, a boolean, or a float with no fraction.
    public var int64Value: Int64? {
        switch self {
        case .bool(let b): return b ? 1 : 0
        case .int(let i): return i
        case .uint(let u): return u <= UInt64(Int64.max) ? Int64(u) : nil
        case .float(let f): return f.rounded() == f && abs(f) < 9.2e18 ? Int64(f) : nil
        default: return nil
        }
    }

    /// The value as a Bool: booleans, and the integers 0 and 1 (HAP servers send both).
    public var boolValue: Bool? {
        switch self {
        case .bool(let b): return b
        case .int(0), .uint(0): return false
        case .int(1), .uint(1): return true
        case .float(let f) where f == 0 || f == 1: return f == 1
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .uint(let u): return String(u)
        case .float(let f): return CharacteristicValue.format(f)
        case .string(let s): return s
        case .data(let d): return Base64.encode(d)
        case .json(let j): return j
        }
    }

    /// Formats a double as JSON writes numbers (`JSONValue.numberText`): integral values without a
    /// fraction (`21`), others in the shortest form that reads back exactly (`21.5`). Non-finite values
    /// print as `null`.
    public static func format(_ f: Double) -> String { JSONValue.numberText(f) }

    /// The value in JSON, as the accessory's JSON message and `/set` results carry it: `true`, `42`,
    /// `21.5`, a JSON string for text, base64 in a JSON string for bytes; `array` and `dict` values are
    /// already JSON text.
    public var jsonText: String {
        switch self {
        case .bool, .int, .uint, .float: return description
        case .string(let s): return JSONString.quoted(s)
        case .data: return JSONString.quoted(description)
        case .json(let j): return j
        }
    }
}
