/// The program's one JSON string escaper (RFC 8259 §7). Every JSON text hap2mqtt writes (HAP bodies,
/// MQTT payloads, Home Assistant configs, `bridge/info`) and every quoted value in messages and log lines
/// goes through it, so that whatever an accessory or a user wrote, the output reads back the same and a
/// log record stays one line.
///
/// It escapes `"` and `\` (`\"`, `\\`), line feed, carriage return and tab (`\n`, `\r`, `\t`), and the
/// other control characters (Unicode category Cc: below U+0020, DEL, and U+0080 to U+009F, among them
/// NEL, which some readers take for a line break) as `\u00XX` with lower-case hex; everything else is
/// written as the string's own UTF-8.
public enum JSONString {
    /// Appends `text` as a JSON string literal, in double quotes, to the UTF-8 bytes `out`.
    public static func append(_ text: String, to out: inout [UInt8]) {
        out.append(quote)
        escape(text, quotes: true, into: &out)
        out.append(quote)
    }

    /// `text` as a JSON string literal: `"Küche \"oben\""`.
    public static func quoted(_ text: String) -> String {
        var text = text
        guard isClean(&text, quotes: true) else {
            var out: [UInt8] = []
            out.reserveCapacity(text.utf8.count + 8)
            append(text, to: &out)
            return String(decoding: out, as: UTF8.self)
        }
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        out += text
        out += "\""
        return out
    }

    /// `text` with control characters escaped as `quoted(_:)` escapes them, but `"` and `\` kept: for free
    /// text in a log line or an error message, which is one line but not a JSON string.
    public static func escapingControlCharacters(_ text: String) -> String {
        var text = text
        if isClean(&text, quotes: false) { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 8)
        escape(text, quotes: false, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static let quote = UInt8(ascii: "\"")
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// How many bytes from `i` on form a character to escape (1, or 2 for U+0080 to U+009F), or 0.
    private static func escapedLength(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int, quotes: Bool) -> Int {
        let byte = bytes[i]
        if byte < 0x20 || byte == 0x7F || (quotes && (byte == quote || byte == UInt8(ascii: "\\"))) { return 1 }
        // U+0080 to U+009F are 0xC2 0x80 to 0xC2 0x9F in UTF-8.
        if byte == 0xC2, i + 1 < bytes.count, bytes[i + 1] < 0xA0 { return 2 }
        return 0
    }

    /// Whether `text` has nothing to escape.
    private static func isClean(_ text: inout String, quotes: Bool) -> Bool {
        text.withUTF8 { bytes in
            for i in bytes.indices where escapedLength(bytes, at: i, quotes: quotes) > 0 { return false }
            return true
        }
    }

    /// Appends the escaped UTF-8 of `text`, copying runs that need no escape at once.
    private static func escape(_ text: String, quotes: Bool, into out: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            var runStart = 0
            var i = 0
            while i < bytes.count {
                let length = escapedLength(bytes, at: i, quotes: quotes)
                guard length > 0 else {
                    i += 1
                    continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
                let scalar = length == 1 ? bytes[i] : bytes[i + 1]  // 0xC2 0x80 is U+0080
                switch scalar {
                case quote: out.append(contentsOf: #"\""#.utf8)
                case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
                case 0x0A: out.append(contentsOf: #"\n"#.utf8)
                case 0x0D: out.append(contentsOf: #"\r"#.utf8)
                case 0x09: out.append(contentsOf: #"\t"#.utf8)
                default:
                    out.append(contentsOf: #"\u00"#.utf8)
                    out.append(hexDigits[Int(scalar >> 4)])
                    out.append(hexDigits[Int(scalar & 0x0F)])
                }
                i += length
                runStart = i
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
    }
}

extension String {
    /// The string as a JSON string literal (`JSONString.quoted`): error messages, log lines and summaries
    /// quote what a user or an accessory wrote with it, so the text stays one line and reads back
    /// unambiguously.
    public var jsonQuoted: String { JSONString.quoted(self) }
}
