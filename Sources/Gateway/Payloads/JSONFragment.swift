public import HomeModel

/// JSON text for values, built by hand on the hot path: every value change republishes its accessory's
/// JSON, and encoding through `JSONEncoder` there would cost more than the MQTT publish itself.
public enum JSONFragment {
    /// A JSON string literal for `text`, escaped per RFC 8259 §7.
    public static func string(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let s where s.value < 0x20:
                let hex = String(s.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
        return out
    }

    /// The JSON of a characteristic value: `true`, `42`, `21.5`, a string, base64 for bytes, `null` for
    /// none; `array`/`dictionary` values are already JSON.
    public static func value(_ value: CharacteristicValue?) -> String {
        guard let value else { return "null" }
        switch value {
        case .bool, .int, .uint, .float: return value.description
        case .string(let s): return string(s)
        case .data: return string(value.description)
        case .json(let j): return j
        }
    }
}
