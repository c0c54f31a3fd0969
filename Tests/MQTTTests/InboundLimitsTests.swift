import Foundation
import HAP2MQTTTesting
import Logging
import MQTT
import Testing

/// `MQTTConfiguration.inbound`: what a client keeps of a flood it has not read yet, through a real
/// mosquitto. The client under test is never read while the flood arrives, as a busy gateway would not.
@Suite("Received messages within bounds")
struct InboundLimitsTests {
    /// A connected client with `limits`, subscribed to everything.
    func client(_ broker: MosquittoBroker, _ limits: MQTTInboundLimits) async throws -> MQTTClient {
        var configuration = MQTTConfiguration(url: broker.url, clientID: "inbound-\(UUID().uuidString.prefix(6))")
        configuration.inbound = limits
        let client = try MQTTClient(configuration: configuration, logger: Logger(label: "mqtt"))
        try await client.connect()
        try await client.subscribe(["#"])
        return client
    }

    @Test("a payload over the limit is not kept: the message arrives empty, with the size it had")
    func payloadLimit() async throws {
        let broker = try await MosquittoBroker()
        let client = try await client(broker, MQTTInboundLimits(maxPayloadSize: 1024))
        let publisher = try await MQTTTestClient.connect(to: broker, subscribe: [])
        try await publisher.publish(
            MQTTMessage(topic: "big", payload: Array(repeating: 7, count: 5000), qos: .atLeastOnce))
        try await publisher.publish(
            MQTTMessage(topic: "small", payload: Array(repeating: 7, count: 1024), qos: .atLeastOnce))
        var messages = client.messages.makeAsyncIterator()
        let big = try #require(await messages.next())
        #expect(big.topic == "big" && big.payload.isEmpty && big.droppedPayloadSize == 5000)
        let small = try #require(await messages.next())
        #expect(small.payload.count == 1024 && small.droppedPayloadSize == nil)
        #expect(client.inboundStatistics.oversized == 1)
        await publisher.disconnect()
        await client.disconnect()
        await broker.stop()
    }

    @Test("unread messages past the bound are shed and counted; collapsing ones replace the unread one on their topic")
    func shedAndCollapse() async throws {
        let broker = try await MosquittoBroker()
        let client = try await client(
            broker, MQTTInboundLimits(maxMessages: 5, collapses: { $0.topic.hasPrefix("c/") }))
        let publisher = try await MQTTTestClient.connect(to: broker, subscribe: [])
        for value in 0..<20 { try await publisher.publish("c/1", String(value)) }
        for n in 1...10 { try await publisher.publish("n/\(n)", "x") }
        try await eventually("all 30 messages to arrive") { client.inboundStatistics.received == 30 }
        let counts = client.inboundStatistics
        #expect(counts.collapsed == 19 && counts.shed == 6, "\(counts)")

        var messages = client.messages.makeAsyncIterator()
        var kept: [String] = []
        for _ in 0..<5 {
            let message = try #require(await messages.next())
            kept.append("\(message.topic)=\(message.payloadString ?? "")")
        }
        #expect(
            kept == ["c/1=19", "n/1=x", "n/2=x", "n/3=x", "n/4=x"],
            "the newest of the collapsed, in the place of the first")
        // Read to the end, the queue takes messages again.
        try await publisher.publish("n/11", "y")
        #expect(await messages.next()?.topic == "n/11")
        await publisher.disconnect()
        await client.disconnect()
        await broker.stop()
    }

    @Test("unread messages are bounded in bytes too")
    func byteBound() async throws {
        let broker = try await MosquittoBroker()
        let client = try await client(broker, MQTTInboundLimits(maxBytes: 10_000))
        let publisher = try await MQTTTestClient.connect(to: broker, subscribe: [])
        for n in 0..<20 {
            try await publisher.publish(
                MQTTMessage(topic: "b/\(n % 10)", payload: Array(repeating: 1, count: 1000), qos: .atLeastOnce))
        }
        try await eventually("all 20 messages to arrive") { client.inboundStatistics.received == 20 }
        // 1,003 bytes each with the topic: nine fit in 10,000.
        #expect(client.inboundStatistics.shed == 11, "\(client.inboundStatistics)")
        await publisher.disconnect()
        await client.disconnect()
        await broker.stop()
    }
}
