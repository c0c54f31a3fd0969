internal import Foundation

/// One JSON scalar, as it arrives inside a multi-write object (`<accessory>/set`,
/// `{"lightbulb":{"on":true,"brightness":50}}`): the input of `Characteristic.parseCommand(json:)`.
///
/// Integers keep 64-bit precision; `double` is any number with a fraction or an exponent.
public enum JSONScalar: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case string(String)

    /// Converts a value from `JSONSerialization` (`NSNumber`, `String`, `NSNull`). Booleans are told
    /// from the numbers 0 and 1 by the number's type (`c`), which is how Foundation marks JSON `true`
    /// and `false` on Linux and on Apple platforms. Returns nil for arrays, objects and anything else.
    public init?(foundation value: Any) {
        switch value {
        case is NSNull: self = .null
        case let s as String: self = .string(s)
        case let n as NSNumber:
            switch String(cString: n.objCType) {
            case "c", "B": self = .bool(n.boolValue)
            case "d", "f": self = .double(n.doubleValue)
            case "Q", "L", "I", "S", "C": self = .uint(n.uint64Value)
            default: self = .int(n.int64Value)
            }
        default: return nil
        }
    }
}
