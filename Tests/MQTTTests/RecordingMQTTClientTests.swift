import HAP2MQTTTesting
import MQTT
import Testing

/// The Gateway tests' broker-less client: what it records and when it says its consumer is done.
@Suite("The recording MQTT client of the tests")
struct RecordingMQTTClientTests {
    @Test("it keeps what a broker would retain, and records every publish call as a batch")
    func record() throws {
        let client = RecordingMQTTClient()
        try client.publish([
            MQTTMessage(topic: "a/state", string: "1", qos: .atLeastOnce, retain: true),
            MQTTMessage(topic: "a/event", string: "pressed", qos: .atLeastOnce),
        ])
        try client.publish([MQTTMessage(topic: "a/state", payload: [], qos: .atLeastOnce, retain: true)])
        #expect(client.batches.map(\.count) == [2, 1])
        #expect(client.payloads(on: "a/#") == ["1", "pressed", ""])
        #expect(client.retained("a/state") == nil, "an empty retained message clears it")
        client.failPublishing(with: .notConnected)
        #expect(throws: MQTTError.notConnected) { try client.publish([MQTTMessage(topic: "a/b", string: "x")]) }
        #expect(client.published.count == 3)
    }

    @Test("a delivered message reaches the consumer only on a subscribed topic; drained() waits until it was handled")
    func deliverAndDrain() async throws {
        let client = RecordingMQTTClient()
        #expect(throws: TestSupportError.self) { try client.deliver("cmd/x", "1") }
        try await client.subscribe(["cmd/+"], qos: .atLeastOnce, retainAsPublished: true)
        let handled = Recorder<String>()
        let consumer = Task {
            for await message in client.messages {
                try? await Task.sleep(for: .milliseconds(20))
                handled.append(message.payloadString ?? "")
            }
        }
        try client.deliver("cmd/x", "1")
        try client.deliver("cmd/y", "2")
        await client.drained()
        #expect(handled.elements == ["1", "2"])
        client.finish()
        await consumer.value
        await client.drained()
    }

    @Test("a reconnect runs the connect hooks with reconnect true, after the time without a connection")
    func reconnect() async {
        let client = RecordingMQTTClient()
        let seen = Recorder<String>()
        client.onConnect { reconnect in seen.append("hook \(reconnect)") }
        await client.reconnect { seen.append("connected: \(client.isConnected)") }
        #expect(seen.elements == ["connected: false", "hook true"])
        #expect(client.isConnected)
    }

    @Test("waitFor wakes when a matching message is published, and times out saying what came on the filter")
    func waitFor() async throws {
        let client = RecordingMQTTClient()
        try client.publish([MQTTMessage(topic: "a/b", string: "old")])
        let waiting = Task { try await client.waitFor(topic: "a/+", after: 1) { $0.payloadString == "new" } }
        try client.publish([MQTTMessage(topic: "a/b", string: "other"), MQTTMessage(topic: "x/y", string: "new")])
        try client.publish([MQTTMessage(topic: "a/c", string: "new")])
        #expect(try await waiting.value.topic == "a/c")
        await #expect(throws: TestSupportError.self) {
            try await client.waitFor(topic: "a/#", timeout: .milliseconds(50)) { $0.payloadString == "never" }
        }
    }
}
