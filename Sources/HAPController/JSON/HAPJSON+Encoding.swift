import HomeModel

extension HAPJSON: CustomStringConvertible {
    /// The value as compact JSON: no white space between tokens, members in their order, strings as UTF-8
    /// with only `"`, `\` and control characters escaped. Tado bridges accept only this form
    /// (aiohomekit hkjson.py `dump_bytes`; docs/hap-notes.md §4.1), e.g.
    /// `{"characteristics":[{"aid":2,"iid":15,"ev":true}]}`.
    ///
    /// Doubles are written in the shortest form that reads back exactly (`21.5`, `21` for whole values);
    /// a non-finite double, which JSON cannot carry, is written as `null`.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        write(to: &out)
        return out
    }

    /// The compact JSON text of `encoded()`.
    public var description: String { String(decoding: encoded(), as: UTF8.self) }

    private func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let i): out.append(contentsOf: String(i).utf8)
        case .uint(let u): out.append(contentsOf: String(u).utf8)
        case .double(let d): out.append(contentsOf: CharacteristicValue.format(d).utf8)
        case .string(let s): Self.writeString(s, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, e) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                e.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (i, m) in object.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(m.key, to: &out)
                out.append(UInt8(ascii: ":"))
                m.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case 0x0A: out.append(contentsOf: #"\n"#.utf8)
            case 0x0D: out.append(contentsOf: #"\r"#.utf8)
            case 0x09: out.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
