internal import JSON

extension String {
    /// The unescaped content of the text when the whole text is one JSON string literal (`"21.5"`,
    /// `"heat"`, `"caf\u00e9"`), else nil (RFC 8259 §7). Only text that starts and ends with `"` reaches
    /// the parser, so bare payloads cost nothing.
    var jsonStringLiteralContent: String? {
        guard utf8.count >= 2, utf8.first == UInt8(ascii: "\""), utf8.last == UInt8(ascii: "\"") else { return nil }
        return (try? JSONValue(parsing: self))?.stringValue
    }
}
