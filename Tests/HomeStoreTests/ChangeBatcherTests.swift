import HomeModel
import Testing

@testable import HomeStore

/// The store's batching rules, decided by `ChangeBatcher` alone, at instants the test chooses.
@Suite("Home store: when changes go out in batches")
struct ChangeBatcherTests {
    static let start = ContinuousClock.now
    /// `milliseconds` after the test's start.
    static func at(_ milliseconds: Double) -> ContinuousClock.Instant { start + .microseconds(milliseconds * 1000) }
    static func change(_ iid: Int) -> HomeChange {
        .valueChanged(CharacteristicAddress(accessory: Fixture.id(2), iid: iid), .int(Int64(iid)), source: .event)
    }

    @Test("after a quiet spell a provider event's changes go out together when the event is handled")
    func quietProviderEvent() throws {
        var batcher = ChangeBatcher(now: Self.at(0))
        batcher.beginProviderEvent()
        let decisions = [batcher.add(Self.change(1), now: Self.at(10)), batcher.add(Self.change(2), now: Self.at(10))]
        let deliverNow = batcher.endProviderEvent()
        #expect(decisions == [.gather, .gather])
        #expect(deliverNow, "nothing is scheduled: the end of the event delivers")
        let batch = batcher.take(now: Self.at(10))
        #expect(batch?.map(\.summary) == ["value 2.1=1 event", "value 2.2=2 event"])
        let empty = batcher.take(now: Self.at(10))
        #expect(empty == nil)
    }

    @Test("after a quiet spell a change from elsewhere goes out after the store's current job, with what follows")
    func quietOtherChange() throws {
        var batcher = ChangeBatcher(now: Self.at(0))
        var decisions = [batcher.add(Self.change(1), now: Self.at(10)), batcher.add(Self.change(2), now: Self.at(10))]
        #expect(batcher.isDeliveryScheduled)
        batcher.beginProviderEvent()
        decisions.append(batcher.add(Self.change(3), now: Self.at(10)))
        let deliverNow = batcher.endProviderEvent()
        #expect(decisions == [.deliverAfterThisJob, .gather, .gather])
        #expect(!deliverNow, "the scheduled delivery takes the event's change with it")
        batcher.scheduledDeliveryIsDue()
        let batch = batcher.take(now: Self.at(10.1))
        #expect(batch?.count == 3)
        #expect(!batcher.isDeliveryScheduled)
    }

    @Test("changes within the window of a delivery wait for its end; after it, the next one goes at once")
    func window() throws {
        var batcher = ChangeBatcher(now: Self.at(0))
        var decisions = [batcher.add(Self.change(1), now: Self.at(10))]
        batcher.scheduledDeliveryIsDue()
        _ = batcher.take(now: Self.at(10))
        var deliverAtEventEnd: [Bool] = []
        for (iid, time) in [(2, 11.0), (3, 11.5)] {
            batcher.beginProviderEvent()
            decisions.append(batcher.add(Self.change(iid), now: Self.at(time)))
            deliverAtEventEnd.append(batcher.endProviderEvent())
        }
        batcher.scheduledDeliveryIsDue()
        let batch = batcher.take(now: Self.at(12))
        batcher.beginProviderEvent()
        decisions.append(batcher.add(Self.change(4), now: Self.at(20)))
        deliverAtEventEnd.append(batcher.endProviderEvent())
        #expect(
            decisions == [.deliverAfterThisJob, .deliver(at: Self.at(10) + ChangeBatcher.window), .gather, .gather])
        #expect(deliverAtEventEnd == [false, false, true])
        #expect(batch?.map(\.summary) == ["value 2.2=2 event", "value 2.3=3 event"])
    }

    @Test("a full batch goes out at once, even while a delivery is scheduled")
    func fullBatch() throws {
        var batcher = ChangeBatcher(now: Self.at(0))
        var decisions = Set<ChangeBatcher.Decision>()
        let first = batcher.add(Self.change(0), now: Self.at(10))
        for iid in 1..<(ChangeBatcher.maximumBatch - 1) {
            decisions.insert(batcher.add(Self.change(iid), now: Self.at(10)))
        }
        let last = batcher.add(Self.change(ChangeBatcher.maximumBatch), now: Self.at(10))
        #expect(first == .deliverAfterThisJob)
        #expect(decisions == [.gather])
        #expect(last == .deliverNow)
        let batch = batcher.take(now: Self.at(10))
        #expect(batch?.count == ChangeBatcher.maximumBatch)
        #expect(batcher.pending.isEmpty)
    }
}
