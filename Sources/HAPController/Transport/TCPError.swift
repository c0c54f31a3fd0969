/// Why a TCP connection to an accessory could not be made or used. Prints as one line.
public enum TCPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The host name did not resolve (`getaddrinfo`).
    case resolutionFailed(host: String, reason: String)
    /// Nothing listens on the port (`ECONNREFUSED`).
    case connectionRefused(host: String, port: UInt16)
    /// No connection within the time-out, in seconds, on any of the host's addresses.
    case connectTimedOut(host: String, port: UInt16, seconds: Double)
    /// The network or host cannot be reached (`ENETUNREACH`, `EHOSTUNREACH`).
    case unreachable(host: String, port: UInt16, reason: String)
    /// The peer reset the connection (`ECONNRESET`).
    case reset
    /// The peer closed the connection.
    case closedByPeer
    /// The connection was closed on this side (`close()`).
    case closed
    /// A send did not finish within the send time-out: the peer stopped reading.
    case sendTimedOut
    /// The task waiting on the connection was cancelled.
    case cancelled
    /// Any other system error, with the call that failed.
    case system(call: String, code: Int32, message: String)

    public var description: String {
        switch self {
        case .resolutionFailed(let h, let r): return "cannot resolve \(h): \(r)"
        case .connectionRefused(let h, let p): return "connection refused by \(Self.endpoint(h, p))"
        case .connectTimedOut(let h, let p, let s): return "no connection to \(Self.endpoint(h, p)) within \(s) s"
        case .unreachable(let h, let p, let r): return "\(Self.endpoint(h, p)) is unreachable: \(r)"
        case .reset: return "the connection was reset by the peer"
        case .closedByPeer: return "the peer closed the connection"
        case .closed: return "the connection is closed"
        case .sendTimedOut: return "sending timed out: the peer stopped reading"
        case .cancelled: return "cancelled"
        case .system(let call, let code, let message): return "\(call) failed: \(message) (errno \(code))"
        }
    }

    /// `host:port`, IPv6 in brackets.
    static func endpoint(_ host: String, _ port: UInt16) -> String {
        // On UTF-8: `String.contains(String)` is Foundation's, 10 µs of each new connection.
        host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
