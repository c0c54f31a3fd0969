/// The store's subscribers and how each takes its batches: from its `changes` stream, or synchronously
/// through a closure (`HomeStore.subscribe(delivering:)`, for an actor on the store's executor).
///
/// A subscriber made before the store was ready gets nothing until the store is: then one batch with
/// every accessory (`sendInitial(_:)`), and the ordinary batches after it.
struct SubscriberList {
    struct Subscriber {
        let continuation: AsyncStream<[HomeChange]>.Continuation
        /// Takes the batches instead of the stream.
        let deliver: (@Sendable ([HomeChange]) -> Void)?
        /// Waits for the batch of every accessory that `sendInitial(_:)` gives.
        var needsInitial: Bool

        func send(_ batch: [HomeChange]) {
            if let deliver { deliver(batch) } else { continuation.yield(batch) }
        }
    }

    private var subscribers: [Int: Subscriber] = [:]
    private var nextID = 0

    /// Whether no one is subscribed (the store then keeps no changes).
    var isEmpty: Bool { subscribers.isEmpty }

    /// Adds a subscriber and returns its number, for `remove(_:)`.
    mutating func add(
        _ continuation: AsyncStream<[HomeChange]>.Continuation, delivering deliver: (@Sendable ([HomeChange]) -> Void)?,
        needsInitial: Bool
    ) -> Int {
        let id = nextID
        nextID += 1
        subscribers[id] = Subscriber(continuation: continuation, deliver: deliver, needsInitial: needsInitial)
        return id
    }

    mutating func remove(_ id: Int) {
        subscribers[id] = nil
    }

    /// Every subscriber waits for the initial batch again (the store is not ready any more).
    mutating func awaitInitial() {
        for id in subscribers.keys { subscribers[id]?.needsInitial = true }
    }

    /// Gives a batch to every subscriber that has had its initial batch.
    func send(_ batch: [HomeChange]) {
        for subscriber in subscribers.values where !subscriber.needsInitial { subscriber.send(batch) }
    }

    /// Gives `initial` (every accessory) to the subscribers waiting for it; an empty one is not sent, but
    /// counts as given.
    mutating func sendInitial(_ initial: [HomeChange]) {
        for (id, subscriber) in subscribers where subscriber.needsInitial {
            subscribers[id]?.needsInitial = false
            if !initial.isEmpty { subscriber.send(initial) }
        }
    }

    /// Finishes every subscriber's stream and forgets them all.
    mutating func finishAll() {
        for subscriber in subscribers.values { subscriber.continuation.finish() }
        subscribers = [:]
    }
}
