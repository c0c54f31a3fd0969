import Synchronization

/// Who may use the web page (docs/DESIGN.md "Web page"). With a token, every request must carry it: as
/// `Authorization: Bearer <token>`, or as the session cookie the login form gives for it (the cookie
/// holds a random session id, never the token; HttpOnly, SameSite=Strict, so no other site's page can
/// send it). A wrong token, in the form or a bearer header, counts against the client's address
/// (`LoginThrottle`). A new token (`replaceToken`, on SIGHUP) ends every session of the old one. Without a
/// token (loopback only), a request must name this machine in `Host`, so that a web site whose name
/// points at 127.0.0.1 (DNS rebinding) cannot reach the page from a browser.
final class AccessGuard: Sendable {
    static let cookieName = "hap2mqtt_session"
    /// Sessions kept at once; the oldest is forgotten first (that browser logs in again).
    static let maxSessions = 64

    /// What a request with a token (or a session) gets.
    enum Verdict: Equatable {
        case admitted
        case refused
        /// Too many wrong tokens from this address (or overall): try again in this many seconds.
        case wait(seconds: Int)
    }

    private struct Keys {
        var token: [UInt8]?
        var sessions: [String] = []
        var throttle = LoginThrottle()
    }

    private let keys: Mutex<Keys>
    private let port: Mutex<UInt16>
    private let hosts: Set<String>

    init(token: String?, host: String) {
        keys = Mutex(Keys(token: token.map { Array($0.utf8) }))
        self.port = Mutex(0)
        hosts = [host.lowercased(), "127.0.0.1", "localhost", "[::1]", "::1"]
    }

    /// Whether a token is required.
    var requiresToken: Bool { keys.withLock { $0.token != nil } }

    /// The port the server got, for the `Host` check.
    func listening(on port: UInt16) { self.port.withLock { $0 = port } }

    /// Whether `request` may be answered.
    func admits(_ request: HTTPRequest, at now: ContinuousClock.Instant = .now) -> Verdict {
        keys.withLock { keys in
            guard let token = keys.token else {
                return namesThisMachine(request.headers["host"]) ? .admitted : .refused
            }
            if let header = request.headers["authorization"], header.hasPrefix("Bearer ") {
                return Self.check(Array(header.dropFirst("Bearer ".count).utf8), token, request.client, &keys, now)
            }
            guard let session = request.cookie(Self.cookieName) else { return .refused }
            return keys.sessions.contains(session) ? .admitted : .refused
        }
    }

    /// A new session id when `given` is the token; `.refused` or `.wait` (without looking at `given`)
    /// otherwise.
    func login(with given: String, from client: String, at now: ContinuousClock.Instant = .now) -> Result<
        String, LoginRefusal
    > {
        keys.withLock { keys in
            guard let token = keys.token else { return .failure(.refused) }
            switch Self.check(Array(given.utf8), token, client, &keys, now) {
            case .refused: return .failure(.refused)
            case .wait(let seconds): return .failure(.wait(seconds: seconds))
            case .admitted: break
            }
            var generator = SystemRandomNumberGenerator()
            let session = (0..<4).map { _ in String(generator.next() as UInt64, radix: 16) }.joined(separator: "-")
            keys.sessions.append(session)
            if keys.sessions.count > Self.maxSessions {
                keys.sessions.removeFirst(keys.sessions.count - Self.maxSessions)
            }
            return .success(session)
        }
    }

    /// Ends the session `request` carries, if any.
    func logout(_ request: HTTPRequest) {
        guard let session = request.cookie(Self.cookieName) else { return }
        keys.withLock { $0.sessions.removeAll { $0 == session } }
    }

    /// Takes `token` as the one to require from now on; when it differs from the one before, every session
    /// ends. Returns whether it differed.
    func replaceToken(_ token: String?) -> Bool {
        keys.withLock { keys in
            let new = token.map { Array($0.utf8) }
            guard new != keys.token else { return false }
            keys.token = new
            keys.sessions = []
            return true
        }
    }

    /// The throttle's line for the log, when one is due (`LoginThrottle.report`).
    func report(at now: ContinuousClock.Instant = .now) -> String? {
        keys.withLock { $0.throttle.report(at: now) }
    }

    /// Why a login was refused.
    enum LoginRefusal: Error, Equatable {
        case refused
        case wait(seconds: Int)
    }

    private static func check(
        _ given: [UInt8], _ token: [UInt8], _ client: String, _ keys: inout Keys, _ now: ContinuousClock.Instant
    ) -> Verdict {
        if let seconds = keys.throttle.admit(client, at: now) { return .wait(seconds: seconds) }
        guard same(given, token) else {
            keys.throttle.failed(client, at: now)
            return .refused
        }
        keys.throttle.succeeded(client)
        return .admitted
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
