import HAP2MQTTTesting
import HAPController
import Testing

@Suite("TLV8 against random input", .timeLimit(.minutes(10)))
struct TLV8FuzzTests {
    @Test("random, truncated and oversized inputs decode or fail with TLV8Error, never crash", arguments: [1, 2, 3, 4])
    func randomInput(seed: UInt64) async {
        var random = SeededGenerator(seed: seed)
        var share = FairShare()
        for round in 0..<2_500 {
            await share.turn()
            let count =
                round % 10 == 0
                ? Int.random(in: 1_000...70_000, using: &random) : Int.random(in: 0...600, using: &random)
            let bytes = random.bytes(count)
            do {
                let decoded = try TLV8(decoding: bytes)
                // Whatever decodes must encode to bytes that decode to the same message.
                #expect(try TLV8(decoding: decoded.encoded()) == decoded, "seed \(seed) round \(round)")
            } catch {
                #expect(error.description.hasPrefix("truncated TLV8"), "seed \(seed) round \(round)")
            }
        }
    }

    @Test("every prefix of a valid message decodes or fails cleanly", arguments: [11, 12])
    func prefixes(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        var message = TLV8()
        for _ in 0..<12 {
            let type = TLV8Type(rawValue: UInt8.random(in: 0...0x14, using: &random))
            message.append(type, random.bytes(Int.random(in: 0...700, using: &random)))
        }
        let bytes = message.encoded()
        var failures = 0
        for end in 0...bytes.count {
            if (try? TLV8(decoding: Array(bytes[0..<end]))) == nil { failures += 1 }
        }
        // Most cuts land inside a value; the whole message always decodes.
        #expect(failures > bytes.count / 2, "seed \(seed)")
        #expect((try? TLV8(decoding: bytes)) != nil)
    }

    @Test("random messages survive encode and decode when no two neighbours share a type", arguments: [21, 22])
    func roundTrips(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        var share = FairShare()
        for round in 0..<500 {
            await share.turn()
            var message = TLV8()
            for _ in 0..<Int.random(in: 0...8, using: &random) {
                var type = TLV8Type(rawValue: UInt8.random(in: 0...0xFE, using: &random))
                if message.items.last?.type == type { type = .separator }
                message.append(type, type == .separator ? [] : random.bytes(Int.random(in: 0...800, using: &random)))
            }
            #expect(try TLV8(decoding: message.encoded()) == message, "seed \(seed) round \(round)")
        }
    }
}
