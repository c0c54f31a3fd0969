import Foundation
import HAP2MQTTTesting
import Logging
import MQTT
import Testing

/// `MQTTClient.retainedMessages`: what the broker retains, read on a connection of its own, through a
/// real mosquitto.
@Suite("Reading the retained topics")
struct RetainedScanTests {
    /// Retains `count` messages under `prefix/` (payload `value-<n>`) on `broker`.
    func retain(_ count: Int, under prefix: String, on broker: MosquittoBroker) async throws {
        let publisher = try await MQTTTestClient.connect(to: broker, subscribe: [])
        for n in 0..<count {
            try await publisher.publish(
                MQTTMessage(topic: "\(prefix)/\(n)", string: "value-\(n)", qos: .atLeastOnce, retain: true))
        }
        await publisher.disconnect()
    }

    @Test("every retained topic comes back, and only the payloads asked for are kept")
    func payloadsAskedFor() async throws {
        let broker = try await MosquittoBroker()
        try await retain(20, under: "keep", on: broker)
        try await retain(20, under: "drop", on: broker)
        let log = LogCapture()
        let client = try MQTTClient(
            configuration: MQTTConfiguration(url: broker.url, clientID: "scan-payloads"),
            logger: log.logger(label: "mqtt"))
        try await client.connect()
        let messages = try await client.retainedMessages(
            matching: ["keep/#", "drop/#"], endMarker: "marker/\(UUID().uuidString)",
            keepingPayloadOf: { $0.hasPrefix("keep/") })
        #expect(messages.count == 40)
        for message in messages {
            let n = message.topic.split(separator: "/").last.map(String.init) ?? ""
            if message.topic.hasPrefix("keep/") {
                #expect(message.payloadString == "value-\(n)" && message.droppedPayloadSize == nil, "\(message.topic)")
            } else {
                #expect(
                    message.payload.isEmpty && message.droppedPayloadSize == "value-\(n)".utf8.count, "\(message.topic)"
                )
            }
        }
        // The scan's own connection ends at every start: its line names it, so it never reads as the
        // main connection's end.
        let scanEnd = try #require(log.all.first { $0.message.contains("closed as asked") }, "\(log.all)")
        #expect(scanEnd.message == #"connection "scan-payloads-scan" to \#(broker.url) closed as asked"#)
        #expect(scanEnd.level == .info)
        await client.disconnect()
        await broker.stop()
    }

    @Test("the client's own bounds on unread messages and payload sizes do not apply to the scan")
    func ownBoundsDoNotApply() async throws {
        let broker = try await MosquittoBroker()
        try await retain(500, under: "home", on: broker)
        var configuration = MQTTConfiguration(url: broker.url, clientID: "scan-bounds")
        // As `hap2mqtt run` bounds commands: with these, a scan that inherited them would shed most of the
        // 500 retained messages (or the end marker) and drop every payload.
        configuration.inbound = MQTTInboundLimits(maxPayloadSize: 2, maxMessages: 5, maxBytes: 64)
        let client = try MQTTClient(configuration: configuration, logger: Logger(label: "mqtt"))
        try await client.connect()
        let messages = try await client.retainedMessages(
            matching: ["home/#"], endMarker: "marker/\(UUID().uuidString)", timeout: .seconds(30))
        #expect(Set(messages.map(\.topic)) == Set((0..<500).map { "home/\($0)" }))
        #expect(messages.allSatisfy { $0.droppedPayloadSize == nil && $0.payloadString?.hasPrefix("value-") == true })
        await client.disconnect()
        await broker.stop()
    }
}
