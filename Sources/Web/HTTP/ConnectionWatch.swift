import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The deadline for each request's head and body (docs/DESIGN.md "Web page"). libmicrohttpd's own timeout
/// counts idleness, and every byte restarts it, so a client sending one header line every few seconds
/// would hold a connection (and its thread) for ever. Here a connection must deliver a whole request
/// within `HTTPLimits.requestSeconds` of opening, or of its previous answer; past that the socket is shut
/// down, libmicrohttpd reads its end and closes it. An answer being written (an event stream) has no
/// deadline: libmicrohttpd's idle timeout covers a client that stops reading.
///
/// Each connection is ended through a descriptor of its own (a `dup` of libmicrohttpd's, closed when
/// libmicrohttpd reports the connection closed), so that a late shutdown can never reach a descriptor
/// the number was given to since, such as the broker's socket.
final class ConnectionWatch: Sendable {
    private let open = Mutex<[ObjectIdentifier: WatchedConnection]>([:])
    private let allowed: Duration

    /// A watch that gives each request `allowed` to arrive.
    init(allowed: Duration) {
        self.allowed = allowed
    }

    /// A connection was accepted: its deadline starts now.
    func opened(_ connection: WatchedConnection) {
        connection.arm(until: .now + allowed)
        open.withLock { $0[ObjectIdentifier(connection)] = connection }
    }

    /// libmicrohttpd closed the connection.
    func closed(_ connection: WatchedConnection) {
        _ = open.withLock { $0.removeValue(forKey: ObjectIdentifier(connection)) }
        connection.release()
    }

    /// The connection's answer is done; the next request on it (keep-alive) has a new deadline.
    func answered(_ connection: WatchedConnection) {
        connection.arm(until: .now + allowed)
    }

    /// Shuts down every connection past its deadline; returns how many.
    @discardableResult
    func endLate(at now: ContinuousClock.Instant = .now) -> Int {
        let watched = open.withLock { Array($0.values) }
        return watched.reduce(0) { $0 + ($1.endIfLate(at: now) ? 1 : 0) }
    }
}

/// One connection as `ConnectionWatch` and the router see it: the client's address, its own descriptor
/// for the socket, and when its request must be complete.
final class WatchedConnection: Sendable {
    /// The client's numeric address (`192.168.1.20`, `::1`); empty when libmicrohttpd could not say.
    let client: String
    private let state: Mutex<State>

    private struct State {
        var descriptor: Int32
        var deadline: ContinuousClock.Instant?
    }

    /// Watches the socket `descriptor` (libmicrohttpd's; duplicated here) of a connection from `client`.
    init(descriptor: Int32, client: String) {
        self.client = client
        state = Mutex(State(descriptor: descriptor < 0 ? -1 : dup(descriptor), deadline: nil))
    }

    func arm(until deadline: ContinuousClock.Instant) { state.withLock { $0.deadline = deadline } }

    /// The whole request arrived: no deadline while it is answered.
    func disarm() { state.withLock { $0.deadline = nil } }

    fileprivate func endIfLate(at now: ContinuousClock.Instant) -> Bool {
        state.withLock { state in
            guard let deadline = state.deadline, deadline <= now, state.descriptor >= 0 else { return false }
            state.deadline = nil
            return shutdown(state.descriptor, Int32(SHUT_RDWR)) == 0
        }
    }

    fileprivate func release() {
        state.withLock { state in
            if state.descriptor >= 0 { close(state.descriptor) }
            state.descriptor = -1
            state.deadline = nil
        }
    }

    /// The numeric address of `address` (getnameinfo(3), NI_NUMERICHOST); empty for none.
    static func numericAddress(_ address: UnsafePointer<sockaddr>?) -> String {
        guard let address else { return "" }
        let length =
            address.pointee.sa_family == sa_family_t(AF_INET6)
            ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard
            getnameinfo(address, socklen_t(length), &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0
        else { return "" }
        let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // An IPv4 client of an IPv6 socket, as people write it.
        return text.hasPrefix("::ffff:") && text.contains(".") ? String(text.dropFirst(7)) : text
    }
}
