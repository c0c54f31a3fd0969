internal import Dispatch
internal import Foundation
import Synchronization
import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a `TCPConnection`'s reading side, its senders and its receivers share, behind one lock: the
/// descriptor, who takes the bytes (a `SocketReader` in place, or `receive()` callers through held
/// chunks), the tasks waiting for bytes, and why the stream ended.
///
/// The bytes are read by the read loop (`ReadLoop`, Linux, for a `SocketReader`) or by a reader thread of
/// the connection's own (`receive()`, and every connection where there is no loop). The descriptor is
/// closed only when `close()` was called or the stream ended, the reading has finished (or never started)
/// and no send is running, so a number the kernel reuses is never touched.
final class SocketState: Sendable {
    typealias Waiter = CheckedContinuation<Result<[UInt8], TCPError>, Never>

    private struct State {
        var descriptor: Int32
        var sendsInFlight = 0
        var readerStarted = false
        var readerDone = false
        var closing = false
        var reader: (any SocketReader)?
        var chunks: [[UInt8]] = []
        var bufferedBytes = 0
        /// Why no more bytes will come, once known.
        var end: TCPError?
        var waiters: [(id: UInt64, continuation: Waiter)] = []
        var nextID: UInt64 = 0
        var readerPaused = false
        /// `close()` is shutting the socket down, outside the lock; the descriptor stays open until then.
        var shuttingDown = false

        /// The descriptor, given up (the caller closes it after the lock is let go), once nobody uses it.
        /// The syscalls stay outside the lock: the read loop, woken by the shutdown, would spin on it
        /// meanwhile (5 % of a pair-verify's CPU).
        mutating func releaseDescriptorIfUnused() -> Int32? {
            // A connection that never started reading has no reader to wait for once it is closed.
            guard readerDone || (!readerStarted && closing), sendsInFlight == 0, !shuttingDown, descriptor >= 0
            else { return nil }
            defer { descriptor = -1 }
            return descriptor
        }
    }

    /// Received bytes held for `receive()` before the reader pauses.
    static let maximumBufferedBytes = 4 << 20
    /// Bytes asked of one `recv`: sixteen HAP frames; the read loop and each reader thread keep a buffer
    /// of this size.
    static let readSize = 16 << 10

    private let state: Mutex<State>
    /// Wakes a paused reader.
    private let readerWake = DispatchSemaphore(value: 0)
    private let name: String

    init(descriptor: Int32, name: String) {
        state = Mutex(State(descriptor: descriptor))
        self.name = name
    }

    /// Starts reading, once: into `reader`, or, with nil, into chunks for `receive()`. A reader gets
    /// `.closed` at once when the connection was closed before.
    func startReading(into reader: (any SocketReader)?) {
        let fd: Int32? = state.withLock { s in
            guard !s.readerStarted else { return nil }
            s.readerStarted = true
            s.reader = reader
            guard !s.closing, s.descriptor >= 0 else {
                s.readerDone = true
                return -1
            }
            return s.descriptor
        }
        guard let fd else { return }
        guard fd >= 0 else {
            reader?.ended(.closed)
            return
        }
        #if os(Linux)
            if reader != nil, let loop = ReadLoop.shared, loop.add(self, descriptor: fd) { return }
        #endif
        let thread = Thread { [self] in readLoop() }
        thread.name = name
        thread.start()
    }

    /// A reader thread's body: blocking `recv` until the stream ends or the connection is closed.
    private func readLoop() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readSize, alignment: 1)
        defer { buffer.deallocate() }
        while true {
            let pause = state.withLock { s in
                guard !s.closing, s.bufferedBytes >= Self.maximumBufferedBytes else { return false }
                s.readerPaused = true
                return true
            }
            if pause {
                readerWake.wait()
                continue
            }
            if readAvailable(into: buffer, blocking: true) != nil { break }
        }
        readerFinished()
    }

    /// One `recv` (without waiting, for the read loop; waiting, for a reader thread) and its bytes handed
    /// on; the descriptor when the stream ended with it (the caller stops reading and calls
    /// `readerFinished()`), else nil.
    func readAvailable(into buffer: UnsafeMutableRawBufferPointer, blocking: Bool = false) -> Int32? {
        let fd = state.withLock { $0.descriptor }
        guard fd >= 0, let base = buffer.baseAddress else { return fd }
        let n: Int
        do throws(SystemCallError) {
            n = try SystemCall.retryingInterrupts("recv") {
                blocking
                    ? POSIX.systemReceive(fd, base, buffer.count)
                    : POSIX.systemReceiveWithoutBlocking(fd, base, buffer.count)
            }
        } catch {
            if !blocking, error.code == EAGAIN || error.code == EWOULDBLOCK { return nil }
            finish(Self.error(error.code, call: error.call))
            return fd
        }
        guard n > 0 else {
            finish(.closedByPeer)
            return fd
        }
        deliver(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        return nil
    }

    /// The reading has ended: the descriptor may be closed once no send uses it.
    func readerFinished() {
        let unused = state.withLock { s in
            s.readerDone = true
            s.reader = nil
            return s.releaseDescriptorIfUnused()
        }
        if let unused { POSIX.systemClose(unused) }
    }

    private func deliver(_ bytes: UnsafeRawBufferPointer) {
        enum Route {
            case reader(any SocketReader)
            case waiter(Waiter, [UInt8])
            case held
        }
        let route: Route = state.withLock { s in
            if let reader = s.reader { return .reader(reader) }
            if s.closing { return .held }
            if !s.waiters.isEmpty { return .waiter(s.waiters.removeFirst().continuation, Array(bytes)) }
            s.chunks.append(Array(bytes))
            s.bufferedBytes += bytes.count
            return .held
        }
        switch route {
        case .reader(let reader): reader.received(bytes)
        case .waiter(let waiter, let copy): waiter.resume(returning: .success(copy))
        case .held: break
        }
    }

    private func finish(_ error: TCPError) {
        let (waiters, reader, end): ([Waiter], (any SocketReader)?, TCPError) = state.withLock { s in
            let end = s.end ?? (s.closing ? .closed : error)
            s.end = end
            guard s.chunks.isEmpty else { return ([], nil, end) }
            defer { s.waiters = [] }
            return (s.waiters.map(\.continuation), s.reader, end)
        }
        reader?.ended(end)
        for w in waiters { w.resume(returning: .failure(end)) }
    }

    func nextWaiterID() -> UInt64 {
        state.withLock { s in
            s.nextID += 1
            return s.nextID
        }
    }

    /// Hands over what has arrived, or the end, or parks `continuation` until bytes come. A task that is
    /// already cancelled gets `.cancelled` (its cancellation handler may have run before this).
    func receive(id: UInt64, _ continuation: Waiter) {
        enum Outcome {
            case bytes([UInt8], wakeReader: Bool)
            case failure(TCPError)
            case parked
        }
        let outcome: Outcome = state.withLock { s in
            if !s.chunks.isEmpty {
                let bytes = s.chunks.count == 1 ? s.chunks[0] : Array(s.chunks.joined())
                s.chunks = []
                s.bufferedBytes = 0
                defer { s.readerPaused = false }
                return .bytes(bytes, wakeReader: s.readerPaused)
            }
            if let end = s.end { return .failure(end) }
            if Task.isCancelled { return .failure(.cancelled) }
            s.waiters.append((id, continuation))
            return .parked
        }
        switch outcome {
        case .bytes(let bytes, let wake):
            if wake { readerWake.signal() }
            continuation.resume(returning: .success(bytes))
        case .failure(let error):
            continuation.resume(returning: .failure(error))
        case .parked:
            break
        }
    }

    func cancelReceive(id: UInt64) {
        let waiter: Waiter? = state.withLock { s in
            guard let i = s.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return s.waiters.remove(at: i).continuation
        }
        waiter?.resume(returning: .failure(.cancelled))
    }

    /// The descriptor for one send, counted so that it stays open until `endSend()`.
    func beginSend() throws(TCPError) -> Int32 {
        try state.withLock { s throws(TCPError) in
            if s.closing { throw .closed }
            guard s.descriptor >= 0 else { throw s.end ?? .closed }
            s.sendsInFlight += 1
            return s.descriptor
        }
    }

    func endSend() {
        let unused = state.withLock { s in
            s.sendsInFlight -= 1
            return s.releaseDescriptorIfUnused()
        }
        if let unused { POSIX.systemClose(unused) }
    }

    /// `.closed` for any failure after `close()`: the cause was this side.
    func translate(_ error: TCPError) -> TCPError { state.withLock { $0.closing } ? .closed : error }

    func close() {
        let (waiters, wakeReader, shutDown): ([Waiter], Bool, Int32?) = state.withLock { s in
            guard !s.closing else { return ([], false, nil) }
            s.closing = true
            s.end = .closed
            s.chunks = []
            s.bufferedBytes = 0
            // Held open (`shuttingDown`) until the shutdown below, so that the number cannot be closed and
            // reused in between.
            let open = s.descriptor >= 0 ? s.descriptor : nil
            s.shuttingDown = open != nil
            defer {
                s.waiters = []
                s.readerPaused = false
            }
            return (s.waiters.map(\.continuation), s.readerPaused, open)
        }
        if let shutDown {
            // This wakes a reader's blocking recv, and the read loop sees the socket hung up.
            POSIX.systemShutdown(shutDown)
            let unused = state.withLock { s in
                s.shuttingDown = false
                return s.releaseDescriptorIfUnused()
            }
            if let unused { POSIX.systemClose(unused) }
        }
        if wakeReader { readerWake.signal() }
        for w in waiters { w.resume(returning: .failure(.closed)) }
    }

    static func error(_ code: Int32, call: String) -> TCPError {
        switch code {
        case ECONNRESET: return .reset
        case EPIPE: return .closedByPeer
        default: return .system(call: call, code: code, message: POSIX.message(code))
        }
    }
}
