internal import Dispatch
internal import Foundation
import Synchronization
import SystemSupport

/// One TCP connection to an accessory server, on POSIX sockets (SwiftNIO cannot be fetched here).
///
/// Reading starts with the first `receive()`, or with `startReading(into:)`, which hands every read to a
/// `SocketReader` where it was read: on Linux on the one read loop of the process (`ReadLoop`, epoll),
/// elsewhere on a reader thread of the connection's own. `receive()` has a reader thread of its own that
/// does blocking `recv` calls. A send is
/// written at once, without blocking, from the calling thread when the kernel takes all of it (a HAP
/// request always fits its socket buffer); only what it does not take goes to a serial queue of its own
/// that may block. So neither blocks Swift's cooperative threads and nothing polls in a loop.
/// For `receive()`, received data is held up to 4 MiB; beyond that the reader pauses until `receive()`
/// takes it, so a peer cannot grow memory without bound (a `SocketReader` takes every read at once).
///
/// The socket has TCP_NODELAY and SO_KEEPALIVE (docs/hap-notes.md §0). One task at a time should call
/// `receive()`; several may, and are served in order. `close()` (or dropping the last reference) ends the
/// connection; the descriptor is closed once the reading and any send in progress have let go of it, so
/// it is never reused under them.
public final class TCPConnection: Sendable {
    /// The host as given to `connect`.
    public let host: String
    /// The TCP port.
    public let port: UInt16
    /// The numeric address the connection reached, e.g. `127.0.0.1` or `::1` (for the `Host` header).
    public let remoteAddress: String

    private let shared: SocketState
    private let sendQueue: DispatchQueue
    /// Sends waiting in `sendQueue`; while there are any, later sends queue behind them.
    private let queuedSends = SendCount()

    /// The default time-out of `connect` (aiohomekit's).
    public static let defaultConnectTimeout: Duration = .seconds(10)
    /// A send that cannot hand its bytes to the kernel for this long fails with `.sendTimedOut`.
    static let sendTimeoutSeconds = 30

    private init(host: String, port: UInt16, connected: SocketConnector.Connected) {
        self.host = host
        self.port = port
        self.remoteAddress = connected.address
        self.shared = SocketState(
            descriptor: connected.descriptor, name: "hap.tcp.read \(TCPError.endpoint(connected.address, port))")
        self.sendQueue = DispatchQueue(label: "hap.tcp.send.\(connected.address).\(port)")
    }

    deinit { shared.close() }

    /// Connects to `host` (an IPv4 or IPv6 literal, bracketed or not, or a name) on `port`, trying each of
    /// the host's addresses in turn within `timeout` overall.
    /// - Throws: `TCPError.resolutionFailed`, `.connectionRefused`, `.connectTimedOut`, `.unreachable`,
    ///   `.cancelled` when the task is cancelled meanwhile, or `.system`.
    ///
    /// A numeric address whose connect completes at once (loopback, often the LAN) is connected on the
    /// calling thread; a thread to start and wake was 130 µs of a 1.5 ms pair-verify here
    /// (hap2mqtt-bench hap). Names and connects that have to wait get a thread of their own.
    public static func connect(host: String, port: UInt16, timeout: Duration = defaultConnectTimeout)
        async throws(TCPError) -> TCPConnection
    {
        if Task.isCancelled { throw .cancelled }
        let start = SocketConnector.start(host: host, port: port, sendTimeoutSeconds: sendTimeoutSeconds)
        if case .done(let result) = start { return TCPConnection(host: host, port: port, connected: try result.get()) }
        let cancelled = Atomic<Bool>(false)
        let result: Result<SocketConnector.Connected, TCPError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // A thread of its own: the lookup and the connect block for up to `timeout`, and several
                // unreachable accessories would otherwise hold all of Dispatch's few shared threads.
                let connector = Thread {
                    let isCancelled = { cancelled.load(ordering: .relaxed) }
                    switch start {
                    case .inProgress(let fd, let address):
                        continuation.resume(
                            returning: SocketConnector.finish(
                                descriptor: fd, address: address, host: host, port: port, timeout: timeout,
                                sendTimeoutSeconds: sendTimeoutSeconds, cancelled: isCancelled))
                    case .needsLookup, .done:
                        continuation.resume(
                            returning: SocketConnector.connect(
                                host: host, port: port, timeout: timeout, sendTimeoutSeconds: sendTimeoutSeconds,
                                cancelled: isCancelled))
                    }
                }
                connector.name = "hap.tcp.connect \(host):\(port)"
                connector.start()
            }
        } onCancel: {
            cancelled.store(true, ordering: .relaxed)
        }
        return TCPConnection(host: host, port: port, connected: try result.get())
    }

    /// Writes all of `bytes`, in one `send` when the kernel takes them (a HAP request must go out in one
    /// write, docs/hap-notes.md §0). Sends from several tasks go out one after another, never interleaved.
    ///
    /// The bytes are written from the calling thread with a non-blocking `send` when no earlier send waits
    /// in the queue; a hand-off to the queue's thread and back cost 20 µs of a 150 µs read
    /// (hap2mqtt-bench hap). What the kernel does not take then goes through the queue.
    /// - Throws: `TCPError.closed` after `close()`, `.reset`, `.closedByPeer`, `.sendTimedOut`, or
    ///   `.system`.
    public func send(_ bytes: [UInt8]) async throws(TCPError) {
        let fd = try shared.beginSend()
        let shared = self.shared
        let queue = sendQueue
        let queuedSends = self.queuedSends
        let result: Result<Void, TCPError> = await withCheckedContinuation { continuation in
            // Decided and queued under one lock, so that a later send can never pass a remainder.
            let done: Result<Void, TCPError>? = queuedSends.count.withLock { queued in
                var sent = 0
                if queued == 0 {
                    switch Self.sendWithoutBlocking(bytes, on: fd) {
                    case .failure(let error): return .failure(error)
                    case .success(let count) where count == bytes.count: return .success(())
                    case .success(let count): sent = count
                    }
                }
                queued += 1
                let rest = bytes[sent...]
                queue.async {
                    let outcome = Self.sendAll(rest, on: fd)
                    queuedSends.count.withLock { $0 -= 1 }
                    shared.endSend()
                    continuation.resume(returning: outcome.mapError { shared.translate($0) })
                }
                return nil
            }
            if let done {
                shared.endSend()
                continuation.resume(returning: done.mapError { shared.translate($0) })
            }
        }
        try result.get()
    }

    /// The next bytes from the peer: everything that has arrived since the last call, at least one byte.
    /// Waits until bytes arrive.
    /// - Throws: `TCPError.closedByPeer` once the peer closed and every byte was taken, `.reset`,
    ///   `.closed` after `close()`, `.cancelled` when the waiting task is cancelled (the connection stays
    ///   usable), or `.system`.
    public func receive() async throws(TCPError) -> [UInt8] {
        shared.startReading(into: nil)
        let id = shared.nextWaiterID()
        let result: Result<[UInt8], TCPError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in shared.receive(id: id, continuation) }
        } onCancel: {
            shared.cancelReceive(id: id)
        }
        return try result.get()
    }

    /// Hands every read from now on to `reader`, in order, and then the end (`.closed` at once when the
    /// connection is closed already); nothing is held for `receive()`. Once, and never with `receive()`.
    func startReading(into reader: some SocketReader) { shared.startReading(into: reader) }

    /// Closes the connection: the peer sees the close, waiting `receive()` calls throw `.closed`, later
    /// sends throw `.closed`. Calling it again does nothing.
    public func close() { shared.close() }

    /// Closes the connection with a reset (`SO_LINGER` 0): what the kernel has not delivered yet is dropped
    /// and never reaches the peer, as a request that timed out must not be carried out after its failure
    /// was reported (docs/DESIGN.md "Writes"). Otherwise as `close()`.
    public func abort() { shared.close(abortively: true) }

    /// Writes what the kernel takes now without waiting; how many bytes that was.
    private static func sendWithoutBlocking(_ bytes: [UInt8], on fd: Int32) -> Result<Int, TCPError> {
        write(bytes[...], on: fd, blocking: false)
    }

    /// Writes all of `bytes`, waiting for room in the socket buffer up to the socket's send time-out.
    private static func sendAll(_ bytes: ArraySlice<UInt8>, on fd: Int32) -> Result<Void, TCPError> {
        write(bytes, on: fd, blocking: true).map { _ in () }
    }

    /// `send` until every byte is written or, without `blocking`, until the socket buffer is full: the
    /// bytes written. A full buffer while blocking means the send time-out passed (`.sendTimedOut`).
    private static func write(_ bytes: ArraySlice<UInt8>, on fd: Int32, blocking: Bool) -> Result<Int, TCPError> {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count, let base = raw.baseAddress {
                do throws(SystemCallError) {
                    offset += try SystemCall.retryingInterrupts("send") {
                        blocking
                            ? POSIX.systemSend(fd, base + offset, raw.count - offset)
                            : POSIX.systemSendWithoutBlocking(fd, base + offset, raw.count - offset)
                    }
                } catch {
                    switch error.code {
                    case EAGAIN, EWOULDBLOCK: return blocking ? .failure(.sendTimedOut) : .success(offset)
                    default: return .failure(SocketState.error(error.code, call: error.call))
                    }
                }
            }
            return .success(offset)
        }
    }
}

/// The number of a connection's sends waiting in its send queue, shared with the queue's blocks.
private final class SendCount: Sendable {
    let count = Mutex(0)
}
