import Synchronization
import SystemSupport

/// Hands a provider's events to the store (`AccessoryProvider.events`): the provider pushes from any
/// thread or actor, the events wait in a `ProviderEventBuffer` (merged per characteristic while unread,
/// unless made with `merging: false`), and the store takes every waiting event in one step.
///
/// The reader is woken only when it is idle: the first push after it found the queue empty calls its
/// wake-up, later pushes only add to the buffer until it takes them, so a burst costs one wake-up (one
/// task of the store, `HomeStore.swift` `launch`) per batch taken, not a continuation and an executor
/// hop per event as an `AsyncStream` would (hap2mqtt-bench latency).
public final class ProviderEventQueue: Sendable {
    /// What `take()` found.
    enum Taken {
        /// The waiting events, oldest first.
        case events([ProviderEvent])
        /// Nothing waits; the next push wakes the reader again.
        case idle
        /// The provider finished and nothing waits; nothing more comes.
        case finished
    }

    private struct State: Sendable {
        var buffer: ProviderEventBuffer
        var reader = AttachedReader()
        var finished = false

        /// Claims the reader's wake-up when it is attached, idle, and has something to take.
        mutating func claimWake() -> (@Sendable () -> Void)? {
            reader.claim(when: finished || !buffer.isEmpty)
        }
    }

    private let state: Mutex<State>

    /// An empty queue; with `merging` false every event is kept as it is (see `ProviderEventBuffer`).
    public init(merging: Bool = true) {
        state = Mutex(State(buffer: ProviderEventBuffer(merging: merging)))
    }

    /// Adds an event, and wakes the reader when it is idle. Ignored after `finish()`. The reader's
    /// wake-up runs on the caller's thread, outside the queue's lock.
    public func push(_ event: ProviderEvent) {
        let wake = state.withLock { s -> (@Sendable () -> Void)? in
            guard !s.finished else { return nil }
            s.buffer.append(event)
            return s.claimWake()
        }
        wake?()
    }

    /// Ends the queue: the reader takes what is left, then learns that nothing more comes.
    public func finish() {
        let wake = state.withLock { s -> (@Sendable () -> Void)? in
            s.finished = true
            return s.claimWake()
        }
        wake?()
    }

    /// Values merged into a waiting event before the reader took them.
    public var coalesced: Int { state.withLock { $0.buffer.coalesced } }

    /// Makes `wake` the reader's wake-up, replacing any earlier one, and calls it at once when events
    /// wait already. The reader then calls `take()` until it answers `.idle` or `.finished`.
    func attach(_ wake: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> (@Sendable () -> Void)? in
            s.reader.attach(wake)
            return s.claimWake()
        }
        now?()
    }

    /// Forgets the reader: no push wakes anyone any more.
    func detach() {
        state.withLock { $0.reader.detach() }
    }

    /// Every waiting event; when none waits, the reader is idle from now on (`.idle`), or the queue has
    /// ended (`.finished`).
    func take() -> Taken {
        state.withLock { s in
            let events = s.buffer.removeAll()
            if !events.isEmpty { return .events(events) }
            s.reader.wentIdle()
            return s.finished ? .finished : .idle
        }
    }

    /// The events as a stream, for a reader other than the store (tests). Each push is handed to the
    /// stream at once, so nothing waits in the buffer to be merged.
    public var stream: AsyncStream<ProviderEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ProviderEvent.self)
        attach { [self] in
            while true {
                switch take() {
                case .events(let events): for event in events { continuation.yield(event) }
                case .idle: return
                case .finished:
                    continuation.finish()
                    return
                }
            }
        }
        return stream
    }
}
