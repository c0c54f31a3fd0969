/// When the store's changes go to its subscribers: in batches, so that a burst of provider events becomes
/// a few deliveries, without holding back a change that comes after a quiet spell.
///
/// A change after a quiet spell goes out as soon as the provider events taken with the one that brought it
/// are handled (all their values in one batch: the store takes every event waiting in a provider's queue
/// at once, `ProviderEventQueue.swift`), or, when it came from elsewhere (a write, the configuration), after the
/// store's current job. Changes that follow within `window` of a delivery gather until the window ends,
/// because a burst keeps reaching the store, in one actor job per handful of events taken. `maximumBatch` changes go out at once,
/// so that a flood never builds one huge batch. The batcher only decides; the store delivers and
/// schedules (`HomeStore.emit(_:)`), so every rule here is tested with instants of its own choosing.
struct ChangeBatcher {
    /// What the store does after adding a change.
    enum Decision: Sendable, Hashable {
        /// Nothing now: a delivery is scheduled already, or the provider event being handled ends with one.
        case gather
        /// Deliver the pending changes now: the batch is full.
        case deliverNow
        /// Deliver after the store's current job (a quiet spell, outside a provider event).
        case deliverAfterThisJob
        /// Deliver at this instant, the end of the window that the last delivery opened.
        case deliver(at: ContinuousClock.Instant)
    }

    /// Changes waiting are delivered at once when this many have gathered.
    static let maximumBatch = 4096

    /// The shortest time between two deliveries that a scheduled delivery keeps.
    static let window = Duration.milliseconds(2)

    /// The changes waiting for delivery, oldest first.
    private(set) var pending: [HomeChange] = []
    /// A delivery is scheduled and has not happened yet.
    private(set) var isDeliveryScheduled = false
    private var isHandlingProviderEvent = false
    private var lastDelivery: ContinuousClock.Instant

    /// A batcher after a quiet spell: the first change goes out without waiting.
    init(now: ContinuousClock.Instant = .now) {
        lastDelivery = now - ChangeBatcher.window
    }

    /// Adds a change made at `now` and says when the pending changes go out.
    mutating func add(_ change: HomeChange, now: ContinuousClock.Instant) -> Decision {
        pending.append(change)
        if pending.count >= ChangeBatcher.maximumBatch { return .deliverNow }
        guard !isDeliveryScheduled else { return .gather }
        let due = lastDelivery + ChangeBatcher.window
        guard now < due else {
            // The end of the provider event delivers; its other values join the batch meanwhile.
            guard !isHandlingProviderEvent else { return .gather }
            isDeliveryScheduled = true
            return .deliverAfterThisJob
        }
        isDeliveryScheduled = true
        return .deliver(at: due)
    }

    /// The store starts handling one provider event.
    mutating func beginProviderEvent() {
        isHandlingProviderEvent = true
    }

    /// The store has handled the provider event. Returns whether to deliver now: true unless a delivery
    /// is scheduled (which takes the event's changes with it).
    mutating func endProviderEvent() -> Bool {
        isHandlingProviderEvent = false
        return !isDeliveryScheduled
    }

    /// A delivery the store scheduled is due.
    mutating func scheduledDeliveryIsDue() {
        isDeliveryScheduled = false
    }

    /// Takes every pending change for a delivery at `now`; nil when none is pending.
    mutating func take(now: ContinuousClock.Instant) -> [HomeChange]? {
        guard !pending.isEmpty else { return nil }
        lastDelivery = now
        var batch: [HomeChange] = []
        swap(&batch, &pending)
        return batch
    }
}
