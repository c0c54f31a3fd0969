import Synchronization

/// Who may use the web page (docs/DESIGN.md "Web page"). With a token, every request must carry it: as
/// `Authorization: Bearer <token>`, or as the session cookie the login form gives for it (the cookie
/// holds a random session id, never the token; HttpOnly, SameSite=Strict, so no other site's page can
/// send it). Without a token (loopback only), a request must name this machine in `Host`, so that a web
/// site whose name points at 127.0.0.1 (DNS rebinding) cannot reach the page from a browser.
final class AccessGuard: Sendable {
    static let cookieName = "hap2mqtt_session"
    /// Sessions kept at once; the oldest is forgotten first (that browser logs in again).
    static let maxSessions = 64

    private let token: [UInt8]?
    private let port: Mutex<UInt16>
    private let sessions = Mutex<[String]>([])
    private let hosts: Set<String>

    init(token: String?, host: String) {
        self.token = token.map { Array($0.utf8) }
        self.port = Mutex(0)
        hosts = [host.lowercased(), "127.0.0.1", "localhost", "[::1]", "::1"]
    }

    /// Whether a token is required.
    var requiresToken: Bool { token != nil }

    /// The port the server got, for the `Host` check.
    func listening(on port: UInt16) { self.port.withLock { $0 = port } }

    /// Whether `request` may be answered.
    func admits(_ request: HTTPRequest) -> Bool {
        guard let token else { return namesThisMachine(request.headers["host"]) }
        if let header = request.headers["authorization"], header.hasPrefix("Bearer ") {
            return Self.same(Array(header.dropFirst("Bearer ".count).utf8), token)
        }
        guard let session = request.cookie(Self.cookieName) else { return false }
        return sessions.withLock { $0.contains(session) }
    }

    /// A new session id when `given` is the token, else nil.
    func login(with given: String) -> String? {
        guard let token, Self.same(Array(given.utf8), token) else { return nil }
        var generator = SystemRandomNumberGenerator()
        let session = (0..<4).map { _ in String(generator.next() as UInt64, radix: 16) }.joined(separator: "-")
        sessions.withLock { kept in
            kept.append(session)
            if kept.count > Self.maxSessions { kept.removeFirst(kept.count - Self.maxSessions) }
        }
        return session
    }

    private func namesThisMachine(_ host: String?) -> Bool {
        guard let host = host?.lowercased() else { return false }
        let port = port.withLock { $0 }
        return hosts.contains { host == $0 || host == "\($0):\(port)" }
    }

    /// Compares in time that depends on the lengths only, so that the answer's timing does not tell how
    /// much of a guess was right.
    private static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
