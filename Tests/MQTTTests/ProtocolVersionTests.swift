import Foundation
import HAP2MQTTTesting
import Logging
import MQTT
import Testing

@Suite("MQTT 5 properties and MQTT 3.1.1")
struct ProtocolVersionTests {
    @Test(
        "response topic, correlation data, expiry, content type and user properties survive a request/response round trip"
    )
    func requestResponse() async throws {
        let broker = try await MosquittoBroker()
        let responder = try await MQTTTestClient.connect(to: broker, subscribe: ["service/request"])
        let requester = try await MQTTTestClient.connect(to: broker, subscribe: ["service/response/#"])
        let correlation: [UInt8] = [1, 2, 3, 0, 0xFF]
        let properties = MQTTProperties(
            responseTopic: "service/response/42", correlationData: correlation, messageExpiryInterval: 60,
            contentType: "application/json",
            userProperties: [
                .init(name: "origin", value: "test"), .init(name: "origin", value: "again"),
                .init(name: "k", value: "v"),
            ])

        try await requester.publish("service/request", #"{"get":"state"}"#, properties: properties)
        let request = try await responder.waitFor(topic: "service/request")
        #expect(request.properties.responseTopic == "service/response/42")
        #expect(request.properties.correlationData == correlation)
        #expect(request.properties.contentType == "application/json")
        #expect(request.properties.userProperties == properties.userProperties)
        // The broker passes on the remaining lifetime, which can only have shrunk.
        #expect((1...60).contains(request.properties.messageExpiryInterval ?? 0))

        let responseTopic = try #require(request.properties.responseTopic)
        try await responder.publish(
            responseTopic, "ok", properties: MQTTProperties(correlationData: request.properties.correlationData))
        let response = try await requester.waitFor(topic: "service/response/42")
        #expect(response.payloadString == "ok")
        #expect(response.properties.correlationData == correlation)
        await requester.disconnect()
        await responder.disconnect()
    }

    @Test("mosquitto_rr, the shell's MQTT 5 request tool, gets its answer through the response topic")
    func mosquittoRR() async throws {
        let broker = try await MosquittoBroker()
        let responder = try MQTTClient(
            configuration: MQTTConfiguration(url: broker.url, clientID: "responder"), logger: Logger(label: "mqtt"))
        try await responder.subscribe(["rr/request"])
        try await responder.connect()
        let answering = Task {
            for await request in responder.messages {
                guard let topic = request.properties.responseTopic else { continue }
                try? await responder.publishAndWait(
                    MQTTMessage(
                        topic: topic, string: "pong", qos: .atLeastOnce,
                        properties: MQTTProperties(correlationData: request.properties.correlationData)))
            }
        }

        let output = try await ExternalTool.run(
            "mosquitto_rr",
            [
                "-h", "127.0.0.1", "-p", String(broker.port), "-t", "rr/request", "-e", "rr/response", "-m", "ping",
                "-W", "10",
            ])

        #expect(output.trimmingCharacters(in: .whitespacesAndNewlines) == "pong")
        await responder.disconnect()
        answering.cancel()
    }

    @Test("a retained message with an expiry interval is gone after it expires")
    func retainedExpiry() async throws {
        let broker = try await MosquittoBroker()
        let client = try await MQTTTestClient.connect(to: broker, subscribe: [])
        // Two retained messages sent the same way, one that expires in a second and one that outlives the
        // test, so the one gone is gone by its expiry alone. Reading the short one back before it expires
        // would race a busy machine.
        try await client.publish(
            "short/lived", "soon gone", retain: true, properties: MQTTProperties(messageExpiryInterval: 1))
        try await client.publish(
            "long/lived", "stays", retain: true, properties: MQTTProperties(messageExpiryInterval: 3600))
        try await client.publish("no/expiry", "forever", retain: true)

        try await eventually("the retained message expired", timeout: .seconds(60)) {
            try await client.retained("short/lived") == nil
        }
        let long = try #require(try await client.retained("long/lived"))
        #expect(long.payloadString == "stays")
        // The broker passes on the remaining lifetime, which can only have shrunk.
        #expect((1...3600).contains(long.properties.messageExpiryInterval ?? 0))
        #expect(try await client.retained("no/expiry")?.payloadString == "forever")
        await client.disconnect()
    }

    @Test("a 3.1.1 client publishes, subscribes and receives retained messages; properties are not sent")
    func version311() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["old/#"])
        let legacy = try await MQTTTestClient.connect(to: broker, subscribe: ["old/#"]) { $0.protocolVersion = .v311 }

        try await legacy.publish(
            "old/state", "on", retain: true,
            properties: MQTTProperties(responseTopic: "old/reply", userProperties: [.init(name: "a", value: "b")]))
        let seen = try await observer.waitFor(topic: "old/state")
        #expect(seen.payloadString == "on")
        #expect(seen.properties == MQTTProperties())

        try await observer.publish("old/command", "toggle", properties: MQTTProperties(contentType: "text/plain"))
        let received = try await legacy.waitFor(topic: "old/command")
        #expect(received.payloadString == "toggle")
        #expect(received.properties == MQTTProperties())

        let late = try await MQTTTestClient.connect(to: broker, subscribe: ["old/state"]) { $0.protocolVersion = .v311 }
        let retained = try await late.waitFor(topic: "old/state")
        #expect(retained.retain)
        #expect(retained.payloadString == "on")
        for client in [observer, legacy, late] { await client.disconnect() }
    }
}
