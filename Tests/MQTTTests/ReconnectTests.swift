import Foundation
import HAP2MQTTTesting
import Logging
import MQTT
import Testing

@Suite("Reconnecting by itself when the broker goes away")
struct ReconnectTests {
    @Test(
        "after a broker restart on the same port the client reconnects, re-subscribes and calls onConnect(reconnect: true)"
    )
    func brokerRestart() async throws {
        let broker = try await MosquittoBroker()
        let survivor = try MQTTTestClient(
            configuration: MQTTTestClient.configuration(url: broker.url, clientID: "survivor"))
        let hookCalls = Recorder<Bool>()
        survivor.client.onConnect { [weak client = survivor.client] reconnect in
            // Published to a topic the client subscribed itself: it only comes back if the remembered
            // subscription was sent before the hook ran.
            try? await client?.publishAndWait(
                MQTTMessage(topic: "survivor/hook", string: "\(reconnect)", qos: .atLeastOnce))
            hookCalls.append(reconnect)
        }
        try await survivor.connect(subscribe: ["survivor/#"])
        _ = try await survivor.waitFor(topic: "survivor/hook") { $0.payloadString == "false" }

        await broker.stop()
        try await survivor.waitForEvent { if case .disconnected = $0 { true } else { false } }
        #expect(!survivor.client.isConnected)
        try await broker.restart()

        try await survivor.waitForEvent { $0 == .connected(reconnect: true) }
        _ = try await survivor.waitFor(topic: "survivor/hook") { $0.payloadString == "true" }
        try await eventually("the second hook call returns") { hookCalls.elements.count == 2 }
        #expect(hookCalls.elements == [false, true])
        #expect(survivor.client.isConnected)
        let commander = try await MQTTTestClient.connect(to: broker, subscribe: [])
        try await commander.publish("survivor/command", "after restart")
        #expect(try await survivor.waitFor(topic: "survivor/command").payloadString == "after restart")
        let events = await survivor.connectionEvents
        #expect(events.first == .connected(reconnect: false))
        #expect(events.count == 3)
        await commander.disconnect()
        await survivor.disconnect()
    }

    @Test("while disconnected, QoS 1 messages are kept and sent after the reconnect; QoS 0 messages are dropped")
    func publishWhileDisconnected() async throws {
        let broker = try await MosquittoBroker()
        let client = try await MQTTTestClient.connect(to: broker, subscribe: [])
        await broker.stop()
        try await client.waitForEvent { if case .disconnected = $0 { true } else { false } }

        try client.client.publish(MQTTMessage(topic: "offline/kept", string: "kept", qos: .atLeastOnce, retain: true))
        try client.client.publish(
            MQTTMessage(topic: "offline/dropped", string: "dropped", qos: .atMostOnce, retain: true))
        let acknowledged = Task {
            try await client.client.publishAndWait(
                MQTTMessage(topic: "offline/awaited", string: "awaited", qos: .atLeastOnce, retain: true))
        }
        await #expect(throws: MQTTError.notConnected) {
            try await client.client.publishAndWait(MQTTMessage(topic: "offline/qos0", string: "no", qos: .atMostOnce))
        }
        try await broker.restart()

        try await acknowledged.value
        #expect(try await client.retained("offline/kept")?.payloadString == "kept")
        #expect(try await client.retained("offline/awaited")?.payloadString == "awaited")
        #expect(try await client.retained("offline/dropped") == nil)
        await client.disconnect()
    }

    @Test("disconnect() while the broker is unreachable returns promptly and finishes the streams")
    func disconnectWhileReconnecting() async throws {
        let broker = try await MosquittoBroker()
        var configuration = MQTTTestClient.configuration(url: broker.url)
        configuration.reconnectDelay = (.seconds(20), .seconds(30))
        let client = try MQTTClient(configuration: configuration, logger: Logger(label: "mqtt"))
        let drained = Task { for await _ in client.messages {} }
        let events = Task {
            var seen: [MQTTConnectionEvent] = []
            for await event in client.connectionEvents { seen.append(event) }
            return seen
        }
        try await client.connect()
        await broker.kill()
        try await eventually("the client notices the broker is gone") { !client.isConnected }

        let started = ContinuousClock.now
        await client.disconnect()

        // The reconnect wait is 20 s; disconnect() must cut it short instead of sitting it out.
        #expect(ContinuousClock.now - started < .seconds(10))
        await drained.value
        let seen = await events.value
        #expect(seen.first == .connected(reconnect: false))
        #expect(seen.count == 2)
        #expect(throws: MQTTError.closed) { try client.publish(MQTTMessage(topic: "late", string: "x")) }
        await #expect(throws: MQTTError.closed) { try await client.connect() }
    }
}
