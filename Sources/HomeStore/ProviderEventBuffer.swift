import HomeModel
public import SystemSupport

/// A provider's events until the store takes them (docs/DESIGN.md "Hostile input"): `.values` that
/// arrive while the last `.values` is still unread are merged into it, the newest value of each
/// characteristic winning, so that an accessory flooding events costs at most one waiting value per
/// characteristic however far the store falls behind. Other events keep their order and are never
/// merged. While the store keeps up nothing waits, and nothing is merged; a stateless characteristic (a
/// button) can then lose a press only while the store is behind.
///
/// A provider's `ProviderEventQueue` keeps its events in one; `merging: false` keeps every event as it
/// is (the in-memory provider of the tests and benchmarks, whose every value is expected).
public struct ProviderEventBuffer: HandOffBuffer {
    private var events: [ProviderEvent] = []
    private var head = 0
    /// Where each characteristic's update is in the last event, when that is an unread `.values` and
    /// `isIndexed`. Built only when a second `.values` arrives before the store read the first: while
    /// the store keeps up, no event pays for a dictionary.
    private var lastValues: [CharacteristicAddress: Int] = [:]
    private var isIndexed = false
    private let merging: Bool
    /// Values replaced by a newer one of the same characteristic before the store read them.
    public private(set) var coalesced = 0

    /// An empty buffer; with `merging` false it keeps every event.
    public init(merging: Bool = true) {
        self.merging = merging
    }

    /// Whether no event waits.
    public var isEmpty: Bool { head == events.count }

    public mutating func append(_ event: ProviderEvent) {
        guard merging, case .values(let updates) = event else {
            events.append(event)
            forgetLast()
            return
        }
        guard head < events.count, case .values(var pending) = events[events.count - 1] else {
            events.append(event)
            forgetLast()
            return
        }
        if !isIndexed {
            lastValues = Dictionary(pending.enumerated().map { ($1.address, $0) }, uniquingKeysWith: { $1 })
            isIndexed = true
        }
        for update in updates {
            if let at = lastValues[update.address] {
                pending[at] = update
                coalesced += 1
            } else {
                lastValues[update.address] = pending.count
                pending.append(update)
            }
        }
        events[events.count - 1] = .values(pending)
    }

    /// Every waiting event, oldest first, in one step; the buffer is empty after it.
    public mutating func removeAll() -> [ProviderEvent] {
        guard head < events.count else { return [] }
        var taken: [ProviderEvent] = []
        swap(&taken, &events)
        if head > 0 { taken.removeFirst(head) }
        head = 0
        forgetLast()
        return taken
    }

    /// The last event is no longer open for merging (read, or followed by another kind of event).
    private mutating func forgetLast() {
        guard isIndexed else { return }
        lastValues = [:]
        isIndexed = false
    }

    public mutating func popFirst() -> ProviderEvent? {
        guard head < events.count else { return nil }
        let event = events[head]
        head += 1
        if head == events.count {
            // Empty: give the array back, and the last event is no longer open for merging.
            events = []
            head = 0
            forgetLast()
        } else if head >= 32, head * 2 >= events.count {
            events.removeFirst(head)
            head = 0
        }
        return event
    }
}
