import HAP2MQTTTesting
import HAPController
import HomeModel
import Testing

/// Ways of breaking a valid input.
enum Mutation {
    /// Bytes JSON and HTTP give meaning to, so that mutations reach deep into the parsers.
    static let alphabet = Array(#"{}[]",:0123456789-+.eEtrufalsn \\/u\r\n:HTTPEVNTO"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xFF, 0xED, 0xA0]

    static func randomBytes(count: Int, using g: inout SeededGenerator) -> [UInt8] {
        (0..<count).map { _ in Bool.random(using: &g) ? alphabet.randomElement(using: &g) ?? 0 : UInt8.random(in: 0...255, using: &g) }
    }

    /// `input` with a few bytes flipped, inserted, deleted or duplicated, or cut short.
    static func mutate(_ input: [UInt8], using g: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...4, using: &g) {
            guard !bytes.isEmpty else { return randomBytes(count: 8, using: &g) }
            let at = Int.random(in: 0..<bytes.count, using: &g)
            switch Int.random(in: 0..<6, using: &g) {
            case 0: bytes[at] = alphabet.randomElement(using: &g) ?? 0
            case 1: bytes[at] = UInt8.random(in: 0...255, using: &g)
            case 2: bytes.insert(contentsOf: randomBytes(count: Int.random(in: 1...6, using: &g), using: &g), at: at)
            case 3: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...8, using: &g)))
            case 4: bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + 16)], at: at)
            default: bytes = Array(bytes[..<at])
            }
        }
        return bytes
    }
}

@Suite("JSON fuzzing")
struct JSONFuzzTests {
    /// Parses `bytes`; when it is JSON, writing it out and reading it back must give the same text again,
    /// and when it is not, the error offset must lie inside the input.
    func check(_ bytes: [UInt8]) {
        do {
            let value = try HAPJSON(parsing: bytes)
            let text = value.encoded()
            #expect((try? HAPJSON(parsing: text))?.encoded() == text, "round trip of \(String(decoding: bytes, as: UTF8.self))")
        } catch {
            #expect((0...bytes.count).contains(error.offset), "offset \(error.offset) of \(bytes.count) bytes")
        }
    }

    @Test("thousands of random byte strings never crash the JSON reader")
    func randomBytes() async {
        var g = SeededGenerator(seed: 0x4A53_4F4E)
        var share = FairShare()
        for _ in 0..<5000 {
            await share.turn()
            check(Mutation.randomBytes(count: Int.random(in: 0...120, using: &g), using: &g))
        }
    }

    @Test("mutations and truncations of a real /accessories body never crash the JSON reader")
    func mutatedBodies() async throws {
        let body = try FixtureFiles.hapPythonAccessories()
        var g = SeededGenerator(seed: 0xB0D1)
        var share = FairShare()
        for _ in 0..<3000 {
            await share.turn()
            check(Mutation.mutate(body, using: &g))
        }
        for cut in stride(from: 0, through: body.count, by: 7) { check(Array(body[..<cut])) }
    }

    @Test("random deep and wide nesting never overflows the stack")
    func nesting() async {
        var g = SeededGenerator(seed: 0xDEE9)
        var share = FairShare(rounds: 10)
        for _ in 0..<200 {
            await share.turn()
            var text = ""
            for _ in 0..<Int.random(in: 1...400, using: &g) { text += ["[", "{\"k\":", "[1,", "{\"a\":[", " "].randomElement(using: &g) ?? "[" }
            check(Array(text.utf8))
        }
        check(Array(String(repeating: "[", count: 1_000_000).utf8))
    }

    @Test("a value read in any format writes back in that format")
    func valueCoding() {
        var g = SeededGenerator(seed: 0x7A1E)
        let samples = ["0", "1", "2", "-1", "21.5", "20.0", "1e300", "-1e-300", "true", "false", "null", #""""#, #""AQID""#, #""12""#,
                       #""true""#, #""%%""#, "[1,2]", #"{"a":1}"#, "18446744073709551615", "-9223372036854775808", "9223372036854775808", #""é""#]
        for _ in 0..<3000 {
            guard let text = samples.randomElement(using: &g), let format = CharacteristicFormat.allCases.randomElement(using: &g),
                let json = try? HAPJSON(parsing: text)
            else { continue }
            guard let value = try? CharacteristicValue.decoded(fromHAP: json, format: format) else { continue }
            #expect((try? HAPJSON(encoding: value, format: format)) != nil, "\(text) as \(format) read as \(value) but does not write")
        }
    }
}
