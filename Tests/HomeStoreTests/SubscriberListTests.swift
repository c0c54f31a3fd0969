import HAP2MQTTTesting
import HomeModel
import Testing

@testable import HomeStore

/// How the store's subscribers take their batches, tried on `SubscriberList` alone.
@Suite("Home store: the subscriber list")
struct SubscriberListTests {
    static let added = HomeChange.accessoryAdded(Fixture.lamp())
    static let reachable = HomeChange.reachabilityChanged(Fixture.id(2), reachable: false, reason: "gone")

    @Test("a stream subscriber and a delivering one get the same batches, in order")
    func bothKinds() async throws {
        var list = SubscriberList()
        let (stream, continuation) = AsyncStream<[HomeChange]>.makeStream()
        let delivered = HAP2MQTTTesting.Recorder<[HomeChange]>()
        _ = list.add(continuation, delivering: nil, needsInitial: false)
        let (unused, unusedContinuation) = AsyncStream<[HomeChange]>.makeStream()
        _ = list.add(unusedContinuation, delivering: { delivered.append($0) }, needsInitial: false)
        list.send([Self.added])
        list.send([Self.reachable])
        list.finishAll()
        var streamed: [[String]] = []
        for await batch in stream { streamed.append(batch.map(\.summary)) }
        #expect(streamed == [["added 2"], ["reachable 2 false"]])
        #expect(delivered.elements.map { $0.map(\.summary) } == streamed)
        var nothing = 0
        for await _ in unused { nothing += 1 }
        #expect(nothing == 0, "a delivering subscriber's stream carries nothing")
        #expect(list.isEmpty)
    }

    @Test("a subscriber waiting for the initial batch gets nothing before it, and an empty one is not sent")
    func initialFirst() {
        var list = SubscriberList()
        let delivered = HAP2MQTTTesting.Recorder<[HomeChange]>()
        let (_, continuation) = AsyncStream<[HomeChange]>.makeStream()
        let id = list.add(continuation, delivering: { delivered.append($0) }, needsInitial: true)
        list.send([Self.reachable])
        #expect(delivered.elements.isEmpty)
        list.sendInitial([Self.added])
        list.send([Self.reachable])
        list.awaitInitial()
        list.send([Self.reachable])
        list.sendInitial([])
        list.send([Self.reachable])
        #expect(
            delivered.elements.map { $0.map(\.summary) } == [["added 2"], ["reachable 2 false"], ["reachable 2 false"]])
        list.remove(id)
        #expect(list.isEmpty)
    }
}
