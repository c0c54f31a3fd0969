public import Synchronization

/// What a `HandOffQueue` keeps between the producer and its one reader, and by which rules: it decides
/// what becomes of each element added (kept, merged with one waiting, dropped) and which comes next.
public protocol HandOffBuffer: Sendable {
    associatedtype Element: Sendable
    /// Takes an element from the producer.
    mutating func append(_ element: Element)
    /// The next element for the reader, nil when none waits.
    mutating func popFirst() -> Element?
}

/// Hands elements from a producer on any thread (a C library's callback thread, an actor) to one reading
/// task, through a buffer with rules of its own: bounded, collapsing or merging (docs/DESIGN.md "Hostile
/// input"). An `AsyncStream` buffer can only keep everything or drop the oldest or newest, uncounted,
/// which is why this exists. `stream` is an `AsyncStream` that reads it.
///
/// Inlinable, so that a module using it gets code specialised for its buffer: unspecialised, every push
/// looked up the generic metadata of its state and tuples at run time, on the thread of the C library's
/// callback, before the reader was woken (hap2mqtt-bench command, Benchmarks/README.md).
public final class HandOffQueue<Buffer: HandOffBuffer>: Sendable {
    @usableFromInline
    struct State: Sendable {
        @usableFromInline var buffer: Buffer
        @usableFromInline var waiter: CheckedContinuation<Buffer.Element?, Never>?
        @usableFromInline var finished = false

        @inlinable
        init(buffer: Buffer) { self.buffer = buffer }
    }

    @usableFromInline
    let state: Mutex<State>

    /// A queue over `buffer`.
    @inlinable
    public init(_ buffer: Buffer) {
        state = Mutex(State(buffer: buffer))
    }

    /// The elements, in the buffer's order, for one reader; it ends after `finish()` once the buffer is
    /// empty, or when the reading task is cancelled.
    @inlinable
    public var stream: AsyncStream<Buffer.Element> {
        AsyncStream(unfolding: { [self] in await self.next() })
    }

    /// Adds an element through the buffer's rules, and wakes the reader if one waits. Ignored after
    /// `finish()`.
    @inlinable
    public func push(_ element: Buffer.Element) {
        let handOff = state.withLock { s -> (CheckedContinuation<Buffer.Element?, Never>, Buffer.Element)? in
            guard !s.finished else { return nil }
            s.buffer.append(element)
            guard let waiter = s.waiter, let next = s.buffer.popFirst() else { return nil }
            s.waiter = nil
            return (waiter, next)
        }
        if let (waiter, next) = handOff { waiter.resume(returning: next) }
    }

    /// The next element, waiting for one; nil once finished and empty, or when the task is cancelled.
    @inlinable
    public func next() async -> Buffer.Element? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Buffer.Element?, Never>) in
                let now = state.withLock { s -> Buffer.Element?? in
                    if let element = s.buffer.popFirst() { return .some(element) }
                    if s.finished || Task.isCancelled { return .some(nil) }
                    s.waiter = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            state.withLock { s in
                defer { s.waiter = nil }
                return s.waiter
            }?.resume(returning: nil)
        }
    }

    /// Ends the queue: the reader gets what is left, then nil.
    @inlinable
    public func finish() {
        state.withLock { s in
            s.finished = true
            defer { s.waiter = nil }
            return s.waiter
        }?.resume(returning: nil)
    }

    /// Reads (or changes) the buffer, under the queue's lock.
    @inlinable
    public func withBuffer<T: Sendable>(_ body: (inout Buffer) -> T) -> T {
        state.withLock { body(&$0.buffer) }
    }
}
