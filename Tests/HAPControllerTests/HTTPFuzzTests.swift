import HAP2MQTTTesting
import HAPController
import Testing

@Suite("HTTP fuzzing", .timeLimit(.minutes(10)))
struct HTTPFuzzTests {
    typealias S = HTTPSamples

    /// Feeds `stream` in random pieces. The parser either returns messages or fails with a typed error
    /// and stays failed; it never gives out more body bytes than it was fed.
    func check(_ stream: [UInt8], using g: inout SeededGenerator) {
        var parser = HTTPResponseParser()
        var start = 0
        var bodyBytes = 0
        while start < stream.count {
            let end = min(stream.count, start + Int.random(in: 1...64, using: &g))
            do {
                bodyBytes += try parser.feed(stream[start..<end]).reduce(0) { $0 + $1.body.count }
            } catch {
                #expect(throws: error, "a failed parser stays failed") { _ = try parser.feed(S.noContent) }
                return
            }
            start = end
        }
        #expect(bodyBytes <= stream.count)
    }

    @Test("thousands of random byte streams never crash or hang the parser")
    func randomStreams() async {
        var g = SeededGenerator(seed: 0x4854_5450)
        var share = FairShare()
        for _ in 0..<3000 {
            await share.turn()
            var stream = Mutation.randomBytes(count: Int.random(in: 0...300, using: &g), using: &g)
            if Bool.random(using: &g) { stream = Array("HTTP/1.1 200 OK\r\n".utf8) + stream }
            check(stream, using: &g)
        }
    }

    @Test("mutated and truncated message streams never crash or hang the parser")
    func mutatedStreams() async {
        var g = SeededGenerator(seed: 0x5354_524D)
        let valid = S.event + S.okJSON + S.noContent + S.chunked + S.unauthorizedChunkedEmpty + S.event
        var share = FairShare()
        for _ in 0..<3000 {
            await share.turn()
            check(Mutation.mutate(valid, using: &g), using: &g)
        }
    }

    @Test("oversized declarations fail fast instead of waiting or allocating")
    func oversized() {
        var g = SeededGenerator(seed: 0x0B16)
        let heads = [
            "HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7FFFFFFFFFFFFFF\r\n",
            "HTTP/1.1 200 OK\r\nX-Long: " + String(repeating: "a", count: 20_000),
            "EVENT/1.0 200 OK\r\n" + String(repeating: "X-A: 1\r\n", count: 200),
        ]
        for head in heads {
            var parser = HTTPResponseParser()
            #expect(throws: HTTPParseError.self, "\(head.prefix(60))") {
                var rest = Array(head.utf8)
                while !rest.isEmpty {
                    let n = min(rest.count, Int.random(in: 1...4096, using: &g))
                    _ = try parser.feed(rest[..<n])
                    rest.removeFirst(n)
                }
            }
        }
    }
}
