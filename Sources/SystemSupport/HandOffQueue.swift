public import Synchronization

/// What a `HandOffQueue` keeps between the producer and its one reader, and by which rules: it decides
/// what becomes of each element added (kept, merged with one waiting, dropped) and which comes next.
public protocol HandOffBuffer: Sendable {
    associatedtype Element: Sendable
    /// Takes an element from the producer.
    mutating func append(_ element: Element)
    /// The next element for the reader, nil when none waits.
    mutating func popFirst() -> Element?
    /// Whether no element waits.
    var isEmpty: Bool { get }
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
        /// The reader that reads with `take()` (`attach(_:)`).
        @usableFromInline var reader = AttachedReader()

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

    /// Adds an element through the buffer's rules, and wakes the reader if one waits (or, with a reader
    /// attached, calls its wake-up when it is idle, on this thread, outside the queue's lock). Ignored
    /// after `finish()`.
    @inlinable
    public func push(_ element: Buffer.Element) {
        pushLeavingWake(element)?()
    }

    /// As `push(_:)`, except that an attached reader's wake-up is returned instead of called, for a
    /// producer that must first let go of what the reader may need: libmosquitto's loop thread holds
    /// the socket while it reads, and a command handled inside its callback could not write its answer
    /// until the read ended (MQTTConnection+Loop.swift).
    @inlinable
    public func pushLeavingWake(_ element: Buffer.Element) -> (@Sendable () -> Void)? {
        let handOff = state.withLock { s -> HandOff? in
            guard !s.finished else { return nil }
            s.buffer.append(element)
            if let wake = s.reader.claim(when: s.waiter == nil) { return .wake(wake) }
            guard let waiter = s.waiter, let next = s.buffer.popFirst() else { return nil }
            s.waiter = nil
            return .resume(waiter, next)
        }
        switch handOff {
        case .wake(let wake): return wake
        case .resume(let waiter, let next): waiter.resume(returning: next)
        case nil: break
        }
        return nil
    }

    /// What a push hands the reader.
    @usableFromInline
    enum HandOff {
        case wake(@Sendable () -> Void)
        case resume(CheckedContinuation<Buffer.Element?, Never>, Buffer.Element)
    }

    /// Makes `wake` the reader, in place of `next()` and `stream`: it is called on the pushing thread
    /// when an element arrives and the reader is idle (and at once when elements wait already), and the
    /// reader then calls `take()` until it answers nil. A wake-up can start the reader's task with
    /// `Task.immediate`, which enters an actor whose executor runs jobs on the enqueuing thread (the home
    /// store's, `StoreExecutor`) there and then; a continuation resumed from a foreign thread always
    /// goes through a pool thread first.
    @inlinable
    public func attach(_ wake: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> (@Sendable () -> Void)? in
            s.reader.attach(wake)
            return s.reader.claim(when: !s.buffer.isEmpty && s.waiter == nil)
        }
        now?()
    }

    /// Forgets the attached reader: no push wakes it any more.
    @inlinable
    public func detach() {
        state.withLock { $0.reader.detach() }
    }

    /// For the attached reader: the next element, or nil when none waits, after which the next push
    /// wakes the reader again.
    @inlinable
    public func take() -> Buffer.Element? {
        state.withLock { s in
            if let element = s.buffer.popFirst() { return element }
            s.reader.wentIdle()
            return nil
        }
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
