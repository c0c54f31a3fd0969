import HomeModel
import Synchronization
import Testing

@testable import HomeStore

/// The hand-over from a provider to the store (`ProviderEventQueue`): the reader is woken once per
/// batch it takes, gets every waiting event in one step and in order, and learns when the provider ended.
@Suite("Home store: a provider's event queue")
struct ProviderEventQueueTests {
    static func values(_ iid: Int, _ value: Int64) -> ProviderEvent {
        .values([
            ValueUpdate(
                address: CharacteristicAddress(accessory: Fixture.id(2), iid: iid), value: .int(value), source: .event)
        ])
    }

    static func summary(_ events: [ProviderEvent]) -> [String] {
        events.map { event in
            guard case .values(let updates) = event else { return "other" }
            return updates.map { "\($0.address.iid)=\($0.value?.description ?? "nil")" }.joined(separator: ",")
        }
    }

    @Test("pushes while the reader is awake wake it no more; it takes them all at once, in order")
    func oneWakeUpPerBatch() {
        let queue = ProviderEventQueue(merging: false)
        let wakes = Mutex(0)
        queue.attach { wakes.withLock { $0 += 1 } }
        #expect(wakes.withLock { $0 } == 0)
        queue.push(Self.values(10, 1))
        queue.push(Self.values(10, 2))
        queue.push(.syncFailed(reason: "x"))
        #expect(wakes.withLock { $0 } == 1)
        guard case .events(let taken) = queue.take() else {
            Issue.record("the waiting events were not taken")
            return
        }
        #expect(Self.summary(taken) == ["10=1", "10=2", "other"])
        guard case .idle = queue.take() else {
            Issue.record("an empty queue leaves the reader idle")
            return
        }
        queue.push(Self.values(11, 3))
        #expect(wakes.withLock { $0 } == 2)
    }

    @Test("a merging queue merges values that wait unread; one made with merging: false keeps each")
    func merging() {
        let merging = ProviderEventQueue()
        let keeping = ProviderEventQueue(merging: false)
        for queue in [merging, keeping] {
            queue.attach {}
            for n in 0..<4 { queue.push(Self.values(10 + n % 2, Int64(n))) }
        }
        guard case .events(let merged) = merging.take(), case .events(let kept) = keeping.take() else {
            Issue.record("the waiting events were not taken")
            return
        }
        #expect(Self.summary(merged) == ["10=2,11=3"])
        #expect(merging.coalesced == 2)
        #expect(Self.summary(kept) == ["10=0", "11=1", "10=2", "11=3"])
    }

    @Test("events pushed before the reader attaches wake it as it attaches; after finish it takes the rest, then ends")
    func finish() {
        let queue = ProviderEventQueue()
        queue.push(Self.values(10, 1))
        queue.finish()
        queue.push(Self.values(10, 2))
        let wakes = Mutex(0)
        queue.attach { wakes.withLock { $0 += 1 } }
        #expect(wakes.withLock { $0 } == 1)
        guard case .events(let taken) = queue.take() else {
            Issue.record("the events pushed before finish were not taken")
            return
        }
        #expect(Self.summary(taken) == ["10=1"])
        guard case .finished = queue.take() else {
            Issue.record("the queue did not end")
            return
        }
    }

    @Test("the stream view hands on every event in order and ends after finish")
    func stream() async {
        let queue = ProviderEventQueue()
        var events = queue.stream.makeAsyncIterator()
        for n in 0..<50 {
            queue.push(Self.values(10, Int64(n)))
            #expect(Self.summary([await events.next()].compactMap { $0 }) == ["10=\(n)"])
        }
        queue.finish()
        #expect(await events.next() == nil)
    }
}
