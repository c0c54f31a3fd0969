import HAPController
import Testing

@Suite("HTTP request encoding")
struct HTTPRequestTests {
    @Test("a GET is one buffer with CRLF endings and a Host header without the port")
    func get() {
        let bytes = HTTPRequest.get("/accessories").encoded(host: "192.168.1.20")
        #expect(String(decoding: bytes, as: UTF8.self) == "GET /accessories HTTP/1.1\r\nHost: 192.168.1.20\r\n\r\n")
    }

    @Test("a PUT carries Content-Type, Content-Length and the body right after the blank line")
    func put() {
        let body = Array(#"{"characteristics":[{"aid":2,"iid":15,"ev":true}]}"#.utf8)
        let bytes = HTTPRequest.put("/characteristics", json: body).encoded(host: "10.0.0.5")
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == "PUT /characteristics HTTP/1.1\r\nHost: 10.0.0.5\r\nContent-Type: application/hap+json\r\nContent-Length: 50\r\n\r\n"
                + String(decoding: body, as: UTF8.self))
    }

    @Test("a POST without a body still says Content-Length: 0; TLV8 bodies get their content type")
    func post() {
        let identify = HTTPRequest(method: .post, path: "/identify").encoded(host: "h")
        #expect(
            String(decoding: identify, as: UTF8.self)
                == "POST /identify HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n")
        let verify = HTTPRequest.post("/pair-verify", tlv8: [6, 1, 1]).encoded(host: "h")
        #expect(verify.suffix(3) == [6, 1, 1])
        #expect(
            String(decoding: verify, as: UTF8.self).contains(
                "Content-Type: application/pairing+tlv8\r\nContent-Length: 3\r\n\r\n"))
    }

    @Test(
        "IPv6 hosts are bracketed without their zone; names and IPv4 stay as they are",
        arguments: [
            ("fe80::1", "[fe80::1]"), ("fe80::1%eth0", "[fe80::1]"), ("[2001:db8::2]", "[2001:db8::2]"),
            ("127.0.0.1", "127.0.0.1"), ("lamp.local", "lamp.local"),
        ])
    func host(_ host: String, _ header: String) {
        #expect(HTTPRequest.hostHeaderValue(for: host) == header)
    }

    @Test("line breaks in the path or header fields are dropped so no field can be smuggled in")
    func noInjection() {
        var r = HTTPRequest.get("/a\r\nX-Evil: 1")
        r.headers.add("X-Note", "one\ntwo")
        let text = String(decoding: r.encoded(host: "h\r\nX-y"), as: UTF8.self)
        #expect(text == "GET /aX-Evil: 1 HTTP/1.1\r\nHost: hX-y\r\nX-Note: onetwo\r\n\r\n")
    }

    @Test("what the encoder writes, a parser of responses reads back as the same head")
    func headerLookup() {
        let h: HTTPHeaders = ["Content-Type": "a", "X-Multi": "1"]
        var copy = h
        copy.add("x-multi", "2")
        #expect(copy["CONTENT-TYPE"] == "a")
        #expect(copy.values(for: "X-MULTI") == ["1", "2"])
        #expect(copy["missing"] == nil)
    }
}
