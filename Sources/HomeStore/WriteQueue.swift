import HomeModel

/// The writes waiting for one accessory, first in first out (docs/DESIGN.md "Writes": serialised per accessory).
///
/// A single write to a characteristic that already has a single write waiting replaces that write's value
/// in its place in the queue; both callers then get the outcome of the one write that is sent. Writes in
/// flight have left the queue and are never replaced. All operations are O(1).
struct WriteQueue {
    typealias SingleWaiter = WriteWaiter<Result<CharacteristicValue, HomeStoreError>>
    typealias BatchWaiter = WriteWaiter<[CharacteristicAddress: Result<CharacteristicValue, HomeStoreError>]>

    enum Item {
        case single(CharacteristicWrite, [SingleWaiter])
        case batch([CharacteristicWrite], BatchWaiter)
        /// Writes to several accessories of one server in one request, waiting in each one's queue.
        case joint(JointWrite)

        /// What goes to the provider in one request.
        var writes: [CharacteristicWrite] {
            switch self {
            case .single(let write, _): return [write]
            case .batch(let writes, _): return writes
            case .joint(let joint): return joint.writes
            }
        }

        /// Gives every caller its outcome; an address without a result fails with `missing`.
        func resume(
            returning results: [CharacteristicAddress: Result<CharacteristicValue, HomeStoreError>],
            missing: HomeStoreError
        ) {
            switch self {
            case .single(let write, let waiters):
                let result = results[write.address] ?? .failure(missing)
                for waiter in waiters { waiter.resume(returning: result) }
            case .batch(let writes, let waiter):
                var all = results
                for write in writes where all[write.address] == nil { all[write.address] = .failure(missing) }
                waiter.resume(returning: all)
            case .joint(let joint):
                var all = results
                for write in joint.writes where all[write.address] == nil { all[write.address] = .failure(missing) }
                joint.finished = true
                joint.waiter.resume(returning: all)
            }
        }

        /// Fails every caller with `error`.
        func fail(_ error: HomeStoreError) { resume(returning: [:], missing: error) }

        /// Who waits for the settlement of the write to `address`.
        func settlementHandlers(for address: CharacteristicAddress) -> [WriteSettlementHandler] {
            switch self {
            case .single(let write, let waiters): return write.address == address ? waiters.compactMap(\.settled) : []
            case .batch(let writes, let waiter):
                return writes.contains { $0.address == address } ? [waiter.settled].compactMap { $0 } : []
            case .joint(let joint):
                return joint.writes.contains { $0.address == address } ? [joint.waiter.settled].compactMap { $0 } : []
            }
        }
    }

    /// A write taken out of the queue, with when it was queued: its time-out counts from then.
    struct Queued {
        let item: Item
        let since: ContinuousClock.Instant
    }

    /// The write being sent: its callers, and when the store's watchdog fails it.
    struct InFlight {
        let item: Item
        let deadline: ContinuousClock.Instant
        let timeout: Duration
        /// Characteristics of this write that an event changed while it was in flight: the accessory told
        /// its value after the write began, so the written value does not replace it (`HomeStore.confirm`).
        var changedByEvent: Set<CharacteristicAddress> = []
    }

    /// Which drain task sends this queue's writes (a number unique in the store), nil when none does.
    /// A drain whose write timed out has been replaced and stops when its provider call returns.
    var drain: Int?
    /// The drain task, cancelled when its write times out.
    var drainTask: Task<Void, Never>?
    /// The write being sent, if any.
    var inFlight: InFlight?
    /// Whether writes wait that no one sends yet.
    var isEmpty: Bool { head == tail }
    private var items: [Int: Item] = [:]
    /// When each item was queued (a write folded into a waiting one keeps the first caller's time).
    private var queuedAt: [Int: ContinuousClock.Instant] = [:]
    private var head = 0
    private var tail = 0
    private var waitingSingles: [CharacteristicAddress: Int] = [:]

    /// How many callers wait for a write that has not been sent yet.
    var waitingCallers: Int {
        items.values.reduce(0) { count, item in
            switch item {
            case .single(_, let waiters): return count + waiters.count
            case .batch, .joint: return count + 1
            }
        }
    }

    /// Queues a single write, or folds it into the waiting write to the same characteristic.
    /// Returns whether it was folded.
    @discardableResult
    mutating func enqueue(_ write: CharacteristicWrite, waiter: SingleWaiter) -> Bool {
        if let position = waitingSingles[write.address], case .single(_, let waiters)? = items[position] {
            items[position] = .single(write, waiters + [waiter])
            return true
        }
        items[tail] = .single(write, [waiter])
        queuedAt[tail] = .now
        waitingSingles[write.address] = tail
        tail += 1
        return false
    }

    /// Queues writes that go out in one request.
    mutating func enqueue(batch writes: [CharacteristicWrite], waiter: BatchWaiter) {
        items[tail] = .batch(writes, waiter)
        queuedAt[tail] = .now
        tail += 1
    }

    /// Queues the part of a joint write that waits in this accessory's queue: the write is sent once it is
    /// first in every queue it waits in (`HomeStore.drainWrites`).
    mutating func enqueue(joint: JointWrite) {
        items[tail] = .joint(joint)
        queuedAt[tail] = .now
        tail += 1
    }

    /// Takes the oldest write out of the queue.
    mutating func popFirst() -> Queued? {
        guard head < tail, let item = items.removeValue(forKey: head) else { return nil }
        let since = queuedAt.removeValue(forKey: head) ?? .now
        head += 1
        if case .single(let write, _) = item, waitingSingles[write.address] == head - 1 {
            waitingSingles[write.address] = nil
        }
        return Queued(item: item, since: since)
    }
}

/// Writes to several accessories of one accessory server that go out in one request (a scene's recall, a
/// group's command: HAP's `PUT /characteristics` takes any characteristics of the server). It waits in
/// the queue of each accessory it writes, so that it keeps its place among their other writes: each
/// queue's drain that reaches it parks there, and the last to reach it sends it; when it is answered,
/// the parked queues go on. Held only by the store's queues, on the store's executor.
final class JointWrite {
    /// Every write, for one provider.
    let writes: [CharacteristicWrite]
    /// Who gets the outcomes.
    let waiter: WriteQueue.BatchWaiter
    /// The accessories whose queue has not reached it yet.
    var waiting: Set<AccessoryID>
    /// The queues parked on it, with the number of the drain that parked each.
    var parked: [AccessoryID: Int] = [:]
    /// Answered (or failed): a queue that reaches it later passes it by.
    var finished = false

    init(writes: [CharacteristicWrite], waiter: WriteQueue.BatchWaiter) {
        self.writes = writes
        self.waiter = waiter
        waiting = Set(writes.map(\.address.accessory))
    }
}
