import HAP2MQTTTesting
import JSON
import Testing

@Suite("JSON fuzzing", .timeLimit(.minutes(10)))
struct JSONFuzzTests {
    /// Parses `bytes`; when it is JSON, writing it out and reading it back must give the same text again,
    /// and when it is not, the error offset must lie inside the input.
    func check(_ bytes: [UInt8]) {
        do {
            let value = try JSONValue(parsing: bytes)
            let text = value.encoded()
            #expect(
                (try? JSONValue(parsing: text))?.encoded() == text,
                "round trip of \(String(decoding: bytes, as: UTF8.self))")
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
            for _ in 0..<Int.random(in: 1...400, using: &g) {
                text += ["[", "{\"k\":", "[1,", "{\"a\":[", " "].randomElement(using: &g) ?? "["
            }
            check(Array(text.utf8))
        }
        check(Array(String(repeating: "[", count: 1_000_000).utf8))
    }

    @Test("random values write and read back as the same value, and sorted keys change only the order")
    func randomValues() async throws {
        var g = SeededGenerator(seed: 0x5641_4C55)
        var share = FairShare()
        for _ in 0..<2000 {
            await share.turn()
            let value = Self.tree(depth: 0, using: &g)
            #expect(try JSONValue(parsing: value.encoded()) == value, "\(value)")
            let sorted = try JSONValue(parsing: value.encoded(sortingKeys: true))
            #expect(sorted.encoded(sortingKeys: true) == value.encoded(sortingKeys: true))
        }
    }

    /// A random value; doubles have a fraction or are beyond 10^15, since whole ones read back as integers.
    static func tree(depth: Int, using g: inout SeededGenerator) -> JSONValue {
        switch Int.random(in: 0..<(depth < 5 ? 10 : 7), using: &g) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &g))
        case 2: return .int(Int64.random(in: .min ... .max, using: &g))
        case 3: return JSONValue(UInt64.random(in: .min ... .max, using: &g))
        case 4: return .double([0.1, -21.5, 1e-7, 1e300, -2.5e-300, .pi, 1e16, -0.5].randomElement(using: &g) ?? 0.5)
        case 5, 6:
            let scalars = (0..<Int.random(in: 0...8, using: &g)).compactMap { _ in
                Unicode.Scalar(UInt32.random(in: 0...0x2FF, using: &g))
            }
            return .string(String(String.UnicodeScalarView(scalars)))
        case 7: return .array((0..<Int.random(in: 0...4, using: &g)).map { _ in tree(depth: depth + 1, using: &g) })
        default:
            var object = JSONObject()
            for _ in 0..<Int.random(in: 0...4, using: &g) {
                object.append(
                    ["a", "b", "B", "é", "_", "a\u{0}", ""].randomElement(using: &g) ?? "a",
                    tree(depth: depth + 1, using: &g))
            }
            return .object(object)
        }
    }
}
