extension String {
    /// The string as a JSON string literal (RFC 8259 §7): in double quotes, with quotes, backslashes and
    /// control characters escaped. Error messages, log lines and summaries use it so that whatever a
    /// user or an accessory wrote, the output stays one line and reads back unambiguously.
    var jsonQuoted: String { "\"" + escapingControlCharacters(andQuotes: true) + "\"" }

    /// The string with line breaks, tabs and other control characters escaped as JSON escapes them
    /// (`\n`, `\u0001`), and with `andQuotes` also `"` and `\`.
    func escapingControlCharacters(andQuotes: Bool) -> String {
        var out = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\"" where andQuotes: out += "\\\""
            case "\\" where andQuotes: out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
