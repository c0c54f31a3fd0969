import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP relay on 127.0.0.1 in front of a server port, that a test can cut: `cutConnections()` closes
/// every relayed connection at once, without any protocol goodbye, as a crashed peer or a lost network
/// would. New connections are relayed again afterwards. With `closingIdleAfter`, it also closes each
/// connection that carried no byte in either direction for that long, as accessories that end idle
/// connections do (docs/hap-notes.md §7.8). `blackHoleConnections()` makes the relayed connections go
/// silent without closing them (bytes are read and dropped in both directions), as a connection does
/// whose peer vanished without a FIN (a lost network, a router that forgot it).
///
/// ```swift
/// let proxy = try TCPProxy(to: broker.port)   // clients connect to proxy.url
/// proxy.cutConnections()                       // the broker sees the client vanish: its will fires
/// let idle = try TCPProxy(to: accessory.port, closingIdleAfter: .seconds(3))
/// ```
public final class TCPProxy: Sendable {
    /// The port clients connect to.
    public let port: Int
    /// `mqtt://127.0.0.1:<port>`, for MQTT clients.
    public var url: String { "mqtt://127.0.0.1:\(port)" }
    private let relay: Relay

    /// Starts relaying 127.0.0.1:`port` to 127.0.0.1:`targetPort`, closing connections idle for
    /// `closingIdleAfter` when it is given (checked every 100 ms).
    /// - Throws: `TestSupportError.socket`.
    public init(to targetPort: Int, closingIdleAfter idleLimit: Duration? = nil) throws {
        let listener = try LoopbackSocket.makeListener(port: 0)
        do {
            port = try LoopbackSocket.boundPort(listener)
        } catch {
            close(listener)
            throw error
        }
        relay = Relay(listener: listener, port: port, targetPort: targetPort, idleLimit: idleLimit)
        let relay = self.relay
        Thread { relay.acceptLoop() }.start()
    }

    deinit {
        relay.stop()
    }

    /// Closes every connection relayed so far, in both directions.
    public func cutConnections() {
        relay.cutConnections()
    }

    /// Stops relaying on every connection open now, without closing it: what either side sends is read
    /// and dropped, so both see a connection that is open and never answers. New connections are relayed.
    public func blackHoleConnections() {
        relay.blackHoleConnections()
    }

    /// Takes the link down (`true`: every relayed connection is cut, or with `silently` goes silent as
    /// `blackHoleConnections()` makes it, and new ones are closed as soon as they are accepted, as a host
    /// whose network is gone refuses them) or up again (`false`). With `refusing`, the port itself is
    /// closed while the link is down, so that a connect fails (`ECONNREFUSED`) instead of opening.
    /// With `silently` and `passingRequests`, what the client sends is still delivered and only the
    /// server's bytes are dropped: a link that failed after the request went out, so that the server
    /// carries it out and its answer never comes back.
    public func linkDown(_ down: Bool, silently: Bool = false, refusing: Bool = false, passingRequests: Bool = false) {
        relay.refuse(down, closingPort: down && refusing)
        // The accept loop closes or opens the port within its next turn (100 ms): wait for it, so that no
        // connect slips through in between.
        while relay.listening != !(down && refusing) { usleep(10_000) }
        guard down else { return }
        if silently { relay.blackHoleConnections(passingRequests: passingRequests) } else { relay.cutConnections() }
    }

    /// How many connections are being relayed.
    public var connectionCount: Int { relay.connectionCount }

    /// How many connections were closed for being idle.
    public var idleCloses: Int { relay.idleCloses }

    /// How long the oldest connection being relayed has been open; zero without one.
    public var oldestConnectionAge: Duration { relay.oldestConnectionAge }

    /// How long the quietest connection being relayed has carried no byte that was passed on; zero
    /// without one. A black-holed connection stays quiet however much is sent on it.
    public var longestQuiet: Duration { relay.longestQuiet }

    /// Stops accepting and cuts every connection.
    public func stop() {
        relay.stop()
    }
}

/// The sockets and threads behind a `TCPProxy`. Every descriptor is closed exactly once, by the last
/// pump thread of its connection, so no thread reads from a number the kernel has handed out again.
private final class Relay: Sendable {
    private struct Connection {
        var sockets: (Int32, Int32)
        var runningPumps = 2
        let opened = ContinuousClock.now
        var lastTraffic = ContinuousClock.now
        var closing = false
        var blackHoled = false
        /// Only the server's bytes are dropped (`linkDown(passingRequests:)`).
        var repliesBlackHoled = false
    }

    private struct State {
        var stopped = false
        /// New connections are closed at once (`linkDown`).
        var refusing = false
        /// The listening socket; -1 while the port is closed (`linkDown(refusing:)`).
        var listener: Int32 = -1
        /// The port is to be closed (the accept loop closes it, and opens it again when this ends).
        var portClosed = false
        var connections: [Int: Connection] = [:]
        var nextID = 0
        var idleCloses = 0
    }

    private let targetPort: Int
    /// The port it listens on.
    private let port: Int
    private let idleLimit: Duration?
    private let state = Mutex(State())

    init(listener: Int32, port: Int, targetPort: Int, idleLimit: Duration?) {
        state.withLock { $0.listener = listener }
        self.port = port
        self.targetPort = targetPort
        self.idleLimit = idleLimit
    }

    var connectionCount: Int { state.withLock { $0.connections.count } }
    var listening: Bool { state.withLock { $0.listener >= 0 } }
    var idleCloses: Int { state.withLock { $0.idleCloses } }
    var oldestConnectionAge: Duration {
        state.withLock { state in
            state.connections.values.filter { !$0.closing }.map { ContinuousClock.now - $0.opened }.max() ?? .zero
        }
    }

    var longestQuiet: Duration {
        state.withLock { state in
            state.connections.values.filter { !$0.closing }.map { ContinuousClock.now - $0.lastTraffic }.max() ?? .zero
        }
    }

    /// Closes (FIN both ways) the connections quiet for longer than `idleLimit`.
    private func closeIdleConnections() {
        guard let idleLimit else { return }
        let now = ContinuousClock.now
        state.withLock { state in
            for (id, connection) in state.connections
            where !connection.closing && now - connection.lastTraffic > idleLimit {
                state.connections[id]?.closing = true
                state.idleCloses += 1
                shutdown(connection.sockets.0, Self.shutdownBoth)
                shutdown(connection.sockets.1, Self.shutdownBoth)
            }
        }
    }

    func acceptLoop() {
        while !state.withLock({ $0.stopped }) {
            closeIdleConnections()
            guard let listener = openOrCloseListener() else {
                usleep(100_000)
                continue
            }
            var descriptor = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 100) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            if state.withLock({ $0.refusing }) {
                close(client)
                continue
            }
            guard let upstream = try? LoopbackSocket.makeConnection(port: targetPort) else {
                close(client)
                continue
            }
            let id = state.withLock { state -> Int in
                state.nextID += 1
                state.connections[state.nextID] = Connection(sockets: (client, upstream))
                return state.nextID
            }
            Thread { self.pump(id: id, from: client, to: upstream) }.start()
            Thread { self.pump(id: id, from: upstream, to: client) }.start()
        }
        let listener = state.withLock { $0.listener }
        if listener >= 0 { close(listener) }
    }

    private func pump(id: Int, from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        copying: while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            let relaying = state.withLock { state -> Bool in
                guard let connection = state.connections[id], !connection.blackHoled,
                    !(connection.repliesBlackHoled && source == connection.sockets.1)
                else { return false }
                state.connections[id]?.lastTraffic = .now
                return true
            }
            guard relaying else { continue }
            var sent = 0
            while sent < count {
                let written = buffer.withUnsafeBytes { bytes -> Int in
                    guard let base = bytes.baseAddress else { return -1 }
                    return send(destination, base + sent, count - sent, Self.noSignal)
                }
                guard written > 0 else { break copying }
                sent += written
            }
        }
        finishPump(id: id)
    }

    /// The first pump of a connection to end shuts both sockets down, which wakes the other; the last
    /// one closes them.
    private func finishPump(id: Int) {
        let toClose = state.withLock { state -> (Int32, Int32)? in
            guard var connection = state.connections[id] else { return nil }
            connection.runningPumps -= 1
            if connection.runningPumps > 0 {
                state.connections[id] = connection
                shutdown(connection.sockets.0, Self.shutdownBoth)
                shutdown(connection.sockets.1, Self.shutdownBoth)
                return nil
            }
            state.connections[id] = nil
            return connection.sockets
        }
        if let (first, second) = toClose {
            close(first)
            close(second)
        }
    }

    func cutConnections() {
        state.withLock { state in
            for connection in state.connections.values {
                shutdown(connection.sockets.0, Self.shutdownBoth)
                shutdown(connection.sockets.1, Self.shutdownBoth)
            }
        }
    }

    /// Closes new connections at once while `refusing`; with `closingPort`, the listening socket is
    /// closed instead (connects are refused) until `refuse(false, …)`.
    func refuse(_ refusing: Bool, closingPort: Bool) {
        state.withLock { s in
            s.refusing = refusing
            s.portClosed = closingPort
        }
    }

    /// The listening socket, closed or opened again on the accept loop's thread as `portClosed` says
    /// (so that no other thread closes a number the loop polls); nil while the port is closed.
    private func openOrCloseListener() -> Int32? {
        let (listener, closed) = state.withLock { ($0.listener, $0.portClosed) }
        if closed {
            if listener >= 0 {
                close(listener)
                state.withLock { $0.listener = -1 }
            }
            return nil
        }
        if listener >= 0 { return listener }
        guard let reopened = try? LoopbackSocket.makeListener(port: port) else { return nil }
        state.withLock { $0.listener = reopened }
        return reopened
    }

    func blackHoleConnections(passingRequests: Bool = false) {
        state.withLock { state in
            for id in state.connections.keys {
                if passingRequests {
                    state.connections[id]?.repliesBlackHoled = true
                } else {
                    state.connections[id]?.blackHoled = true
                }
            }
        }
    }

    func stop() {
        state.withLock { $0.stopped = true }
        cutConnections()
    }

    #if canImport(Glibc)
        private static let noSignal = Int32(MSG_NOSIGNAL)
        private static let shutdownBoth = Int32(SHUT_RDWR)
    #else
        private static let noSignal: Int32 = 0
        private static let shutdownBoth = SHUT_RDWR
    #endif
}
