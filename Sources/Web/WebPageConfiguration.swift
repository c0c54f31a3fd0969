/// The web page's settings (`frontend` in the configuration file, docs/DESIGN.md "Web page").
public struct WebPageConfiguration: Sendable {
    /// The address to listen on; a loopback one (127.0.0.1, ::1, localhost) needs no token.
    public var host: String
    /// The TCP port; 0 lets the system choose (tests).
    public var port: UInt16
    /// The token every request must carry (the login form's cookie, or `Authorization: Bearer`); nil for
    /// none, allowed on a loopback address only.
    public var authToken: String?
    /// The bounds on connections, streams and bodies.
    public var limits: HTTPLimits

    /// Settings; the defaults are those of `hap2mqtt run`.
    public init(
        host: String = "127.0.0.1", port: UInt16 = 8780, authToken: String? = nil, limits: HTTPLimits = HTTPLimits()
    ) {
        self.host = host
        self.port = port
        self.authToken = authToken
        self.limits = limits
    }

    /// Whether `host` names only this machine (127.0.0.0/8, ::1, `localhost`). A name that does not
    /// resolve is not loopback.
    public static func isLoopback(host: String) -> Bool {
        SocketAddress(host: host, port: 0)?.isLoopback ?? false
    }
}
