import HAPController
import Testing

/// Messages as accessories send them (HAP-python pyhap/hap_protocol.py and hap_event.py wire formats).
enum HTTPSamples {
    static let okJSON =
        bytes("HTTP/1.1 200 OK\r\nContent-Type: application/hap+json\r\nContent-Length: 53\r\n\r\n")
        + bytes(#"{"characteristics":[{"aid":1,"iid":10,"value":true}]}"#)
    static let noContent = bytes("HTTP/1.1 204 No Content\r\n\r\n")
    static let chunked =
        bytes("HTTP/1.1 207 Multi-Status\r\nTransfer-Encoding: chunked\r\nContent-Type: application/hap+json\r\n\r\n")
        + bytes("5;name=value\r\n{\"cha\r\n19\r\nracteristics\":[{\"aid\":1,\"\r\n0\r\nX-Trailer: yes\r\n\r\n")
    static let event =
        bytes("EVENT/1.0 200 OK\r\nContent-Type: application/hap+json\r\nContent-Length: 55\r\n\r\n")
        + bytes(#"{"characteristics":[{"aid":2,"iid":13,"value":"21.5"}]}"#)
    static let unauthorizedChunkedEmpty = bytes(
        "HTTP/1.1 401 Unauthorized\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n")

    static func bytes(_ s: some StringProtocol) -> [UInt8] { Array(s.utf8) }

    static func parseAll(_ stream: [UInt8], splitAt cuts: [Int] = []) throws -> [HTTPMessage] {
        var parser = HTTPResponseParser()
        var out: [HTTPMessage] = []
        var start = 0
        for cut in cuts + [stream.count] {
            out += try parser.feed(stream[start..<cut])
            start = cut
        }
        try parser.finish()
        return out
    }
}

@Suite("HTTP response parser")
struct HTTPResponseParserTests {
    typealias S = HTTPSamples

    @Test("a response with Content-Length gives its status, headers and body")
    func contentLength() throws {
        let m = try #require(try S.parseAll(S.okJSON).first)
        #expect(m.kind == .response)
        #expect(m.status == 200)
        #expect(m.reason == "OK")
        #expect(m.contentType == "application/hap+json")
        #expect(m.headers["content-length"] == "53")
        #expect(String(decoding: m.body, as: UTF8.self) == #"{"characteristics":[{"aid":1,"iid":10,"value":true}]}"#)
    }

    @Test("a chunked body is joined, chunk extensions and trailers are handled")
    func chunked() throws {
        let m = try #require(try S.parseAll(S.chunked).first)
        #expect(m.status == 207)
        #expect(String(decoding: m.body, as: UTF8.self) == #"{"characteristics":[{"aid":1,""#)
        #expect(m.headers["x-trailer"] == "yes")
    }

    @Test("204 has no body even when the next message follows at once")
    func noContent() throws {
        let ms = try S.parseAll(S.noContent + S.okJSON)
        #expect(ms.map(\.status) == [204, 200])
        #expect(ms[0].body.isEmpty)
    }

    @Test("an empty chunked 401 (HAP-python for unauthorised writes) is one message")
    func emptyChunked() throws {
        let ms = try S.parseAll(S.unauthorizedChunkedEmpty + S.noContent)
        #expect(ms.map(\.status) == [401, 204])
        #expect(ms[0].body.isEmpty)
    }

    @Test("EVENT messages are told apart from responses before, between and after them")
    func eventsInterleaved() throws {
        let stream = S.event + S.okJSON + S.event + S.event + S.noContent + S.chunked + S.event
        let ms = try S.parseAll(stream)
        #expect(ms.map(\.kind) == [.event, .response, .event, .event, .response, .response, .event])
        #expect(ms.map(\.status) == [200, 200, 200, 200, 204, 207, 200])
        #expect(ms.filter { $0.kind == .event }.allSatisfy { $0.body == ms[0].body })
    }

    @Test("one chunk holding the end of a response and a whole event gives both")
    func endOfResponseAndEvent() throws {
        var parser = HTTPResponseParser()
        let first = try parser.feed(S.okJSON.prefix(S.okJSON.count - 10))
        #expect(first.isEmpty)
        let rest = try parser.feed(S.okJSON.suffix(10) + S.event)
        #expect(rest.map(\.kind) == [.response, .event])
        #expect(parser.isIdle)
    }

    @Test("a stream split at every byte boundary parses the same as in one piece")
    func everySplit() throws {
        let stream = S.event + S.okJSON + S.noContent + S.chunked + S.unauthorizedChunkedEmpty + S.event
        let whole = try S.parseAll(stream)
        #expect(whole.count == 6)
        for cut in 0...stream.count {
            #expect(try S.parseAll(stream, splitAt: [cut]) == whole, "split at \(cut)")
        }
        #expect(try S.parseAll(stream, splitAt: Array(0..<stream.count)) == whole, "byte by byte")
    }

    @Test("bare LF line endings, any header case and blank lines between messages are accepted")
    func tolerant() throws {
        let stream = S.bytes("HTTP/1.0 200\ncontent-LENGTH:  2 \n\nok\r\n\r\nEVENT/1.0 200 OK\nCONTENT-length: 0\n\n")
        let ms = try S.parseAll(stream)
        #expect(ms.map(\.kind) == [.response, .event])
        #expect(ms[0].body == S.bytes("ok"))
        #expect(ms[0].reason == "")
    }

    @Test("a message without Content-Length or chunking has an empty body; 1xx responses are dropped")
    func framingDefaults() throws {
        let ms = try S.parseAll(
            S.bytes("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 400 Bad Request\r\nX: y\r\n\r\n") + S.noContent)
        #expect(ms.map(\.status) == [400, 204])
    }

    @Test("a folded header line continues the previous value")
    func folded() throws {
        let ms = try S.parseAll(S.bytes("HTTP/1.1 204 No Content\r\nX-Long: a\r\n  b\r\n\r\n"))
        #expect(ms.first?.headers["x-long"] == "a b")
    }

    @Test("the stream may end only between messages")
    func finish() throws {
        var parser = HTTPResponseParser()
        _ = try parser.feed(S.okJSON.prefix(80))
        #expect(!parser.isIdle)
        #expect(throws: HTTPParseError.truncated) { try parser.finish() }
        var idle = HTTPResponseParser()
        _ = try idle.feed(S.noContent)
        try idle.finish()
    }

    @Test(
        "malformed input fails with the matching error",
        arguments: [
            ("garbage\r\n", HTTPParseError.invalidStatusLine("garbage")),
            ("HTTP/1.1 20 OK\r\n", .invalidStatusLine("HTTP/1.1 20 OK")),
            ("HTTP/x 200 OK\r\n", .invalidStatusLine("HTTP/x 200 OK")),
            ("HTTPS/1.1 200 OK\r\n", .invalidStatusLine("HTTPS/1.1 200 OK")),
            ("HTTP/1.1 2000 OK\r\n", .invalidStatusLine("HTTP/1.1 2000 OK")),
            ("HTTP/1.1 200 OK\r\nno colon\r\n", .invalidHeader("no colon")),
            ("HTTP/1.1 200 OK\r\nbad name: x\r\n", .invalidHeader("bad name: x")),
            ("HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n", .invalidContentLength("-5")),
            ("HTTP/1.1 200 OK\r\nContent-Length: 5x\r\n\r\n", .invalidContentLength("5x")),
            (
                "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\n",
                .invalidContentLength("99999999999999999999999")
            ),
            ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", .invalidContentLength("5, 6")),
            ("HTTP/1.1 200 OK\r\nContent-Length: 9000000\r\n\r\n", .bodyTooLarge(limit: 8 * 1024 * 1024)),
            (
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
                .unsupportedTransferEncoding("gzip, chunked")
            ),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", .invalidChunk("bad chunk size 'zz'")),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n", .invalidChunk("bad chunk size '-1'")),
            (
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFF\r\n",
                .bodyTooLarge(limit: 8 * 1024 * 1024)
            ),
            (
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nabc\r\n",
                .invalidChunk("chunk data longer than its size")
            ),
        ])
    func rejects(_ text: String, _ error: HTTPParseError) {
        var parser = HTTPResponseParser()
        #expect(throws: error) { _ = try parser.feed(Array(text.utf8)) }
        #expect(throws: error, "a failed parser stays failed") { _ = try parser.feed(S.noContent) }
    }

    @Test("endless headers, an endless status line and too many fields hit the limits")
    func limits() {
        var endlessHeaders = HTTPResponseParser()
        #expect(throws: HTTPParseError.headersTooLarge(limit: 16 * 1024)) {
            _ = try endlessHeaders.feed(S.bytes("HTTP/1.1 200 OK\r\n"))
            for _ in 0..<100 {
                _ = try endlessHeaders.feed(S.bytes("X-A: " + String(repeating: "b", count: 500) + "\r\n"))
            }
        }
        var endlessLine = HTTPResponseParser()
        #expect(throws: HTTPParseError.headersTooLarge(limit: 16 * 1024)) {
            for _ in 0..<100 { _ = try endlessLine.feed([UInt8](repeating: UInt8(ascii: "A"), count: 1000)) }
        }
        var endlessBlankLines = HTTPResponseParser()
        #expect(throws: HTTPParseError.headersTooLarge(limit: 16 * 1024)) {
            for _ in 0..<10_000 { _ = try endlessBlankLines.feed(S.bytes("\r\n")) }
        }
        var many = HTTPResponseParser(limits: .init(maximumHeaderCount: 3))
        #expect(throws: HTTPParseError.tooManyHeaders(limit: 3)) {
            _ = try many.feed(S.bytes("HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n"))
        }
        var endlessChunkLine = HTTPResponseParser()
        #expect(throws: HTTPParseError.invalidChunk("chunk-size line too long")) {
            _ = try endlessChunkLine.feed(S.bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;"))
            _ = try endlessChunkLine.feed([UInt8](repeating: UInt8(ascii: "x"), count: 2000))
        }
        var smallBody = HTTPResponseParser(limits: .init(maximumBodyBytes: 10))
        #expect(throws: HTTPParseError.bodyTooLarge(limit: 10)) {
            _ = try smallBody.feed(
                S.bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n8\r\n"))
        }
    }

    @Test("errors print as one short line")
    func errorText() {
        let e = HTTPParseError.invalidStatusLine("bad\r\nline " + String(repeating: "x", count: 200))
        #expect(!e.description.contains("\n"))
        #expect(e.description.count < 130)
    }
}
