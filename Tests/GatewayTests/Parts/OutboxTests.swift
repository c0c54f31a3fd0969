import HAP2MQTTTesting
import MQTT
import Testing

@testable import Gateway

/// `Outbox` alone: a step's messages in one call, and the retained messages kept for a republish.
@Suite("Gateway parts: the outbox")
struct OutboxTests {
    @Test("everything queued in a step goes out in one call, in order, and the queue is empty after it")
    func oneCall() throws {
        var outbox = Outbox()
        let client = RecordingMQTTClient()
        outbox.retain("b/state", "1", qos: .atMostOnce)
        outbox.send("b/event", "pressed", properties: MQTTProperties(correlationData: [1]))
        outbox.retainUnkept("ha/config", "{}", qos: .atLeastOnce)
        outbox.clear("b/old")
        outbox.send(contentsOf: [MQTTMessage(topic: "b/reply", string: "ok", qos: .atLeastOnce)])
        try outbox.flush(to: client)
        try outbox.flush(to: client)
        #expect(outbox.isEmpty)
        #expect(client.batches.count == 1, "an empty outbox sends nothing")
        let sent = try #require(client.batches.first)
        #expect(sent.map(\.topic) == ["b/state", "b/event", "ha/config", "b/old", "b/reply"])
        #expect(sent.map(\.retain) == [true, false, true, true, false])
        #expect(sent[0].qos == .atMostOnce && sent[1].qos == .atLeastOnce && sent[3].payload.isEmpty)
        #expect(sent[1].properties.correlationData == [1])
    }

    @Test("it keeps the retained messages it published, not the unkept or cleared ones, for a republish in topic order")
    func retainedForRepublish() throws {
        var outbox = Outbox()
        outbox.retain("z/last", "9", qos: .atLeastOnce)
        outbox.retain("a/first", "1", qos: .atMostOnce)
        outbox.retain("a/first", "2", qos: .atMostOnce)
        outbox.retain("m/gone", "x", qos: .atLeastOnce)
        outbox.clear("m/gone")
        outbox.retainUnkept("ha/config", "{}", qos: .atLeastOnce)
        outbox.send("e/vent", "x")
        let republish = outbox.retainedMessages()
        #expect(
            republish == [
                MQTTMessage(topic: "a/first", string: "2", qos: .atMostOnce, retain: true),
                MQTTMessage(topic: "z/last", string: "9", qos: .atLeastOnce, retain: true),
            ])
    }

    @Test("a publish that fails empties the queue all the same, and the retained messages stay for the republish")
    func failedPublish() {
        var outbox = Outbox()
        let client = RecordingMQTTClient()
        client.failPublishing(with: .notConnected)
        outbox.retain("b/state", "1", qos: .atLeastOnce)
        #expect(throws: MQTTError.notConnected) { try outbox.flush(to: client) }
        #expect(outbox.isEmpty)
        #expect(outbox.retainedMessages().map(\.topic) == ["b/state"])
    }
}
