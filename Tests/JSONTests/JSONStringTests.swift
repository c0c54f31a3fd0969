import HAP2MQTTTesting
import JSON
import Testing

@Suite("JSON string escaping")
struct JSONStringTests {
    @Test(
        "quoting escapes quotes, backslashes and the control characters, and nothing else",
        arguments: [
            ("plain", #""plain""#), ("", #""""#), ("Küche 😀 a/b", #""Küche 😀 a/b""#),
            ("say \"hi\"", #""say \"hi\"""#), (#"C:\dir"#, #""C:\\dir""#),
            ("two\nlines\r\tend", #""two\nlines\r\tend""#),
            ("\u{0}\u{8}\u{C}\u{1B}\u{1F}\u{7F}", #""\u0000\u0008\u000c\u001b\u001f\u007f""#),
            ("a\u{80}\u{85}\u{9F}b", #""a\u0080\u0085\u009fb""#), ("\u{A0}é\u{2028}", "\"\u{A0}é\u{2028}\""),
        ])
    func quoted(_ text: String, _ expected: String) throws {
        #expect(JSONString.quoted(text) == expected)
        #expect(text.jsonQuoted == expected)
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        JSONString.append(text, to: &bytes)
        #expect(bytes == Array(("[" + expected).utf8))
        #expect(try JSONValue(parsing: expected) == .string(text))
    }

    @Test("free text for a log line keeps quotes and backslashes and escapes the rest")
    func controlCharactersOnly() {
        #expect(JSONString.escapingControlCharacters("plain \"text\" \\ é") == "plain \"text\" \\ é")
        #expect(JSONString.escapingControlCharacters("a\nb\u{7F}\u{1}") == #"a\nb\u007f\u0001"#)
    }

    @Test(
        "random text survives quoting and reading back, and the quoted form is one line of printable bytes",
        .timeLimit(.minutes(5)))
    func randomText() async throws {
        var g = SeededGenerator(seed: 0x5154_5854)
        var share = FairShare()
        let pool: [Unicode.Scalar] = [
            "\"", "\\", "/", "\n", "\r", "\t", "\u{0}", "\u{1F}", "\u{7F}", "\u{85}", "a", "é", "€", "😀", "\u{2028}",
            "\u{FEFF}",
        ]
        for _ in 0..<3000 {
            await share.turn()
            var text = ""
            for _ in 0..<Int.random(in: 0...24, using: &g) {
                if Bool.random(using: &g), let s = pool.randomElement(using: &g) {
                    text.unicodeScalars.append(s)
                } else if let s = Unicode.Scalar(UInt32.random(in: 0...0x10FFFF, using: &g)) {
                    text.unicodeScalars.append(s)
                }
            }
            let quoted = JSONString.quoted(text)
            #expect(try JSONValue(parsing: quoted) == .string(text))
            #expect(!Self.hasControlCharacter(quoted))
            #expect(!Self.hasControlCharacter(JSONString.escapingControlCharacters(text)))
        }
    }

    /// Whether `text` holds a character of Unicode category Cc.
    static func hasControlCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
