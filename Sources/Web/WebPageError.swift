/// Why the web page could not start; each prints as one line that says what to change.
public enum WebPageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The address or port cannot be listened on.
    case cannotListen(host: String, port: UInt16, reason: String)
    /// The address is not a loopback one and no token is set (docs/DESIGN.md "Web page").
    case tokenRequired(host: String)

    public var description: String {
        switch self {
        case .cannotListen(let host, let port, let reason):
            return "cannot listen on \(host):\(port): \(reason); change frontend.host or frontend.port"
        case .tokenRequired(let host):
            return "\(host) can be reached from other machines, so the page needs a token: "
                + "set frontend.auth_token_file (or frontend.auth_token), or use host 127.0.0.1"
        }
    }
}
