import Dispatch
import Synchronization

/// One open `text/event-stream` response: events are queued by any task (`send`) and written by the
/// server's connection thread, which blocks in `next(timeout:)` until there is something to write.
/// Bounded: a client that falls `limit` events behind is closed, so a stalled browser holds no more than
/// that (WHATWG HTML "Server-sent events": the page's `EventSource` reconnects by itself).
public final class EventStream: Sendable {
    private struct State {
        var queued: [UInt8] = []
        var events = 0
        var closed = false
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let limit: Int
    /// Called once when the stream closes (the client left, the server stops, or it fell behind).
    private let onClose: @Sendable () -> Void

    /// A stream that closes after `limit` unsent events; `onClose` runs once when it closes.
    public init(limit: Int, onClose: @escaping @Sendable () -> Void = {}) {
        self.limit = limit
        self.onClose = onClose
    }

    /// Queues one event: `event: <name>` and `data: <json>` (one line; JSON has no raw line breaks).
    public func send(_ name: String, _ json: String) {
        let text = "event: \(name)\ndata: \(json)\n\n"
        let overflow = state.withLock { s -> Bool in
            guard !s.closed else { return false }
            s.queued += Array(text.utf8)
            s.events += 1
            return s.events > limit
        }
        if overflow { close() }
        wake.signal()
    }

    /// Whether the stream has been closed.
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// Closes the stream: the writer ends it at its next call. Idempotent.
    public func close() {
        let first = state.withLock { s -> Bool in
            defer { s.closed = true }
            return !s.closed
        }
        guard first else { return }
        wake.signal()
        onClose()
    }

    /// Up to `max` bytes to write, waiting at most `timeout` for some: a keep-alive comment when nothing
    /// came (so that a client that left is noticed by the failed write), nil when the stream is closed.
    func next(max: Int, timeout: Duration) -> [UInt8]? {
        let deadline = DispatchTime.now() + .milliseconds(Int(timeout.components.seconds * 1000))
        while true {
            let taken = state.withLock { s -> [UInt8]?? in
                if s.closed { return .some(nil) }
                guard !s.queued.isEmpty else { return nil }
                let count = min(max, s.queued.count)
                let chunk = Array(s.queued.prefix(count))
                s.queued.removeFirst(count)
                if s.queued.isEmpty { s.events = 0 }
                return .some(chunk)
            }
            if let taken { return taken }
            if wake.wait(timeout: deadline) == .timedOut { return Array(": keep-alive\n\n".utf8) }
        }
    }
}
