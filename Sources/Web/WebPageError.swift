/// Why the web page could not start; each prints as one line that says what to change.
public enum WebPageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The address or port cannot be listened on.
    case cannotListen(host: String, port: UInt16, reason: String)
    /// The address is not a loopback one and no token is set (docs/DESIGN.md "Web page").
    case tokenRequired(host: String)
    /// The HTTP server's library (`library`, installed by the Debian package `package`) cannot be loaded;
    /// `reason` is the dynamic loader's.
    case libraryMissing(library: String, package: String, reason: String)

    public var description: String {
        switch self {
        case .cannotListen(let host, let port, let reason):
            return "cannot listen on \(host):\(port): \(reason); change frontend.host or frontend.port"
        case .tokenRequired(let host):
            return "\(host) can be reached from other machines, so the page needs a token: "
                + "set frontend.auth_token_file (or frontend.auth_token), or use host 127.0.0.1"
        case .libraryMissing(let library, let package, let reason):
            return "\(library) not found: install \(package), or turn the web page off with frontend.enabled: false "
                + "(\(reason))"
        }
    }
}
