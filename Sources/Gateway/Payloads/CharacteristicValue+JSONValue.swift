import HomeModel
import JSON

extension CharacteristicValue {
    /// The value as a `JSONValue`, written as `jsonText` writes it: `true`, `42`, `21.5`, a JSON string
    /// for text, base64 in a JSON string for bytes. An `array` or `dict` value is JSON text already (the
    /// HAP provider's, from `JSONValue.description`) and is read back; text that is not JSON, which no
    /// provider makes, becomes a JSON string.
    var jsonValue: JSONValue {
        switch self {
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .uint(let u): return .uint(u)
        case .float(let f): return .double(f)
        case .string(let s): return .string(s)
        case .data: return .string(description)
        case .json(let j): return (try? JSONValue(parsing: Array(j.utf8))) ?? .string(j)
        }
    }
}
