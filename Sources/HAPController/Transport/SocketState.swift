internal import Dispatch
import Synchronization
import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a `TCPConnection`'s reader thread, its senders and its receivers share, behind one lock: the
/// descriptor, the bytes received and not yet taken, the tasks waiting for bytes, and why the stream
/// ended.
///
/// The descriptor is closed only when `close()` was called or the stream ended, the reader thread has
/// finished and no send is running, so a number the kernel reuses is never touched.
final class SocketState: Sendable {
    typealias Waiter = CheckedContinuation<Result<[UInt8], TCPError>, Never>

    private struct State {
        var descriptor: Int32
        var sendsInFlight = 0
        var readerDone = false
        var closing = false
        var chunks: [[UInt8]] = []
        var bufferedBytes = 0
        /// Why no more bytes will come, once known.
        var end: TCPError?
        var waiters: [(id: UInt64, continuation: Waiter)] = []
        var nextID: UInt64 = 0
        var readerPaused = false

        mutating func closeDescriptorIfUnused() {
            guard readerDone, sendsInFlight == 0, descriptor >= 0 else { return }
            POSIX.systemClose(descriptor)
            descriptor = -1
        }
    }

    /// Received bytes held before the reader pauses.
    static let maximumBufferedBytes = 4 << 20
    /// Bytes asked of one `recv`: sixteen HAP frames; each connection keeps a buffer of this size.
    static let readSize = 16 << 10

    private let state: Mutex<State>
    /// Wakes a paused reader.
    private let readerWake = DispatchSemaphore(value: 0)

    init(descriptor: Int32) { state = Mutex(State(descriptor: descriptor)) }

    /// The reader thread's body: blocking `recv` until the stream ends or the connection is closed.
    func readLoop() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readSize, alignment: 1)
        defer { buffer.deallocate() }
        let fd = state.withLock { $0.descriptor }
        while fd >= 0, let base = buffer.baseAddress {
            let pause = state.withLock { s in
                guard !s.closing, s.bufferedBytes >= Self.maximumBufferedBytes else { return false }
                s.readerPaused = true
                return true
            }
            if pause {
                readerWake.wait()
                continue
            }
            let n: Int
            do throws(SystemCallError) {
                n = try SystemCall.retryingInterrupts("recv") { POSIX.systemReceive(fd, base, Self.readSize) }
            } catch {
                finish(Self.error(error.code, call: error.call))
                break
            }
            if n > 0 {
                deliver(Array(UnsafeRawBufferPointer(rebasing: buffer[0..<n])))
                continue
            }
            finish(.closedByPeer)
            break
        }
        state.withLock { s in
            s.readerDone = true
            s.closeDescriptorIfUnused()
        }
    }

    private func deliver(_ bytes: [UInt8]) {
        let waiter: Waiter? = state.withLock { s in
            if !s.waiters.isEmpty { return s.waiters.removeFirst().continuation }
            s.chunks.append(bytes)
            s.bufferedBytes += bytes.count
            return nil
        }
        waiter?.resume(returning: .success(bytes))
    }

    private func finish(_ error: TCPError) {
        let (waiters, end): ([Waiter], TCPError) = state.withLock { s in
            let end = s.end ?? (s.closing ? .closed : error)
            s.end = end
            guard s.chunks.isEmpty else { return ([], end) }
            defer { s.waiters = [] }
            return (s.waiters.map(\.continuation), end)
        }
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
        state.withLock { s in
            s.sendsInFlight -= 1
            s.closeDescriptorIfUnused()
        }
    }

    /// `.closed` for any failure after `close()`: the cause was this side.
    func translate(_ error: TCPError) -> TCPError { state.withLock { $0.closing } ? .closed : error }

    func close() {
        let (waiters, wakeReader): ([Waiter], Bool) = state.withLock { s in
            guard !s.closing else { return ([], false) }
            s.closing = true
            s.end = .closed
            s.chunks = []
            s.bufferedBytes = 0
            // Under the lock, so the descriptor cannot be closed and reused in between; this wakes the
            // reader's blocking recv.
            if s.descriptor >= 0 { POSIX.systemShutdown(s.descriptor) }
            s.closeDescriptorIfUnused()
            defer {
                s.waiters = []
                s.readerPaused = false
            }
            return (s.waiters.map(\.continuation), s.readerPaused)
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
