/// The value format of a characteristic (HAP spec §6.3.3, Table 6-5).
///
/// `int` is a signed 32-bit integer; `float` a double; `tlv8` and `data` travel as base64 strings in HAP
/// JSON. `array` and `dictionary` are seen in the wild (aiohomekit) and carried as raw JSON text.
public enum CharacteristicFormat: String, Sendable, Codable, CaseIterable {
    case bool, uint8, uint16, uint32, uint64, int, float, string, tlv8, data
    case array
    case dictionary = "dict"

    /// The inclusive integer range the format can hold, for integer formats.
    public var integerRange: ClosedRange<Double>? {
        switch self {
        case .uint8: return 0...Double(UInt8.max)
        case .uint16: return 0...Double(UInt16.max)
        case .uint32: return 0...Double(UInt32.max)
        case .uint64: return 0...Double(UInt64.max)
        case .int: return Double(Int32.min)...Double(Int32.max)
        default: return nil
        }
    }

    /// Whether values of this format are numbers (integer or float).
    public var isNumeric: Bool { integerRange != nil || self == .float }

    /// Whether values of this format are integers.
    public var isInteger: Bool { integerRange != nil }
}
