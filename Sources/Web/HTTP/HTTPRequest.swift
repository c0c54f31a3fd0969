/// One HTTP request as the web page's server hands it to the router: the method, the decoded path
/// without its query, the headers the router reads, and the whole body (at most `HTTPLimits.maxBody`).
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, … as sent.
    public var method: String
    /// The path, percent-decoded by libmicrohttpd, without the query (`/api/accessories`).
    public var path: String
    /// Header values by lower-case name (`host`, `authorization`, `cookie`, `content-type`).
    public var headers: [String: String]
    /// The body's bytes.
    public var body: [UInt8]
    /// The client's numeric address (`192.168.1.20`, `::1`); empty when unknown (a test's request).
    public var client: String

    /// A request; tests make their own.
    public init(
        method: String, path: String, headers: [String: String] = [:], body: [UInt8] = [], client: String = ""
    ) {
        self.client = client
        self.method = method
        self.path = path
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }) { _, last in last }
        self.body = body
    }

    /// The value of cookie `name` in the `Cookie` header, nil when it has none.
    public func cookie(_ name: String) -> String? {
        guard let header = headers["cookie"] else { return nil }
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingSpaces == name { return String(parts[1].trimmingSpaces) }
        }
        return nil
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return s
    }
}
