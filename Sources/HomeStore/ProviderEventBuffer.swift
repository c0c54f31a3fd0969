import HomeModel
public import SystemSupport

/// A provider's events until the store takes them (docs/DESIGN.md "Hostile input"): `.values` that
/// arrive while the last `.values` is still unread are merged into it, the newest value of each
/// characteristic winning, so that an accessory flooding events costs at most one waiting value per
/// characteristic however far the store falls behind. Other events keep their order and are never
/// merged. While the store keeps up nothing waits, and nothing is merged; a stateless characteristic (a
/// button) can then lose a press only while the store is behind.
///
/// A provider keeps one in a `HandOffQueue` and hands `queue.stream` to the store as its `events`.
public struct ProviderEventBuffer: HandOffBuffer {
    private var events: [ProviderEvent] = []
    private var head = 0
    /// Where each characteristic's update is in the last event, when that is an unread `.values`.
    private var lastValues: [CharacteristicAddress: Int] = [:]
    /// Values replaced by a newer one of the same characteristic before the store read them.
    public private(set) var coalesced = 0

    /// An empty buffer.
    public init() {}

    public mutating func append(_ event: ProviderEvent) {
        guard case .values(let updates) = event else {
            events.append(event)
            lastValues = [:]
            return
        }
        guard head < events.count, case .values(var pending) = events[events.count - 1] else {
            events.append(event)
            lastValues = Dictionary(updates.enumerated().map { ($1.address, $0) }, uniquingKeysWith: { $1 })
            return
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

    public mutating func popFirst() -> ProviderEvent? {
        guard head < events.count else { return nil }
        let event = events[head]
        head += 1
        if head == events.count {
            // Empty: give the array back, and the last event is no longer open for merging.
            events = []
            head = 0
            lastValues = [:]
        } else if head >= 32, head * 2 >= events.count {
            events.removeFirst(head)
            head = 0
        }
        return event
    }
}
