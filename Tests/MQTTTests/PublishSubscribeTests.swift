import Foundation
import HAP2MQTTTesting
import Logging
import MQTT
import Testing

@Suite("Publishing and subscribing through a real mosquitto")
struct PublishSubscribeTests {
    @Test("a subscriber receives what another client publishes, payload and topic intact")
    func publishSubscribe() async throws {
        let broker = try await MosquittoBroker()
        let subscriber = try await MQTTTestClient.connect(to: broker, subscribe: ["home/#"])
        let publisher = try await MQTTTestClient.connect(to: broker, subscribe: [])

        try await publisher.publish("home/kitchen/lamp", "on", qos: .atMostOnce)
        let message = try await subscriber.waitFor(topic: "home/kitchen/lamp")

        #expect(message.payloadString == "on")
        #expect(message.retain == false)
        await publisher.disconnect()
        await subscriber.disconnect()
    }

    @Test("binary and empty payloads arrive byte for byte; invalid UTF-8 has no payloadString")
    func binaryPayloads() async throws {
        let broker = try await MosquittoBroker()
        let subscriber = try await MQTTTestClient.connect(to: broker, subscribe: ["bin/#"])
        let bytes: [UInt8] = [0, 0xFF, 0x10, 0xC3, 0x28, 7]

        try await subscriber.publish(MQTTMessage(topic: "bin/data", payload: bytes, qos: .atLeastOnce))
        try await subscriber.publish(MQTTMessage(topic: "bin/empty", payload: [], qos: .atLeastOnce))

        let data = try await subscriber.waitFor(topic: "bin/data")
        let empty = try await subscriber.waitFor(topic: "bin/empty")
        #expect(data.payload == bytes)
        #expect(data.payloadString == nil)
        #expect(empty.payload.isEmpty)
        #expect(empty.payloadString == "")
        await subscriber.disconnect()
    }

    @Test("a retained message reaches a later subscriber with retain set, and an empty one clears it")
    func retained() async throws {
        let broker = try await MosquittoBroker()
        let publisher = try await MQTTTestClient.connect(to: broker, subscribe: [])

        try await publisher.publish("home/lamp/on", "true", retain: true)
        let late = try await MQTTTestClient.connect(to: broker, subscribe: ["home/lamp/on"])
        let message = try await late.waitFor(topic: "home/lamp/on")
        #expect(message.retain)
        #expect(message.payloadString == "true")
        #expect(try await publisher.retained("home/lamp/on")?.payloadString == "true")

        try await publisher.publish("home/lamp/on", "", retain: true)
        #expect(try await publisher.retained("home/lamp/on") == nil)
        await late.disconnect()
        await publisher.disconnect()
    }

    @Test("QoS 1 and 2 are delivered at the lower of the published and subscribed QoS")
    func qualityOfService() async throws {
        let broker = try await MosquittoBroker()
        let exactly = try await MQTTTestClient.connect(to: broker, subscribe: [])
        try await exactly.subscribe(["qos/#"], qos: .exactlyOnce)
        let atMost = try await MQTTTestClient.connect(to: broker, subscribe: [])
        try await atMost.subscribe(["qos/#"], qos: .atMostOnce)
        let publisher = try await MQTTTestClient.connect(to: broker, subscribe: [])

        try await publisher.publish("qos/two", "2", qos: .exactlyOnce)
        try await publisher.publish("qos/one", "1", qos: .atLeastOnce)

        #expect(try await exactly.waitFor(topic: "qos/two").qos == .exactlyOnce)
        #expect(try await exactly.waitFor(topic: "qos/one").qos == .atLeastOnce)
        #expect(try await atMost.waitFor(topic: "qos/two").qos == .atMostOnce)
        for client in [exactly, atMost, publisher] { await client.disconnect() }
    }

    @Test("a burst of 2000 QoS 1 messages published as a batch all arrive, in order")
    func burst() async throws {
        let broker = try await MosquittoBroker()
        let subscriber = try await MQTTTestClient.connect(to: broker, subscribe: ["burst/#"])
        let publisher = try MQTTClient(
            configuration: MQTTConfiguration(url: broker.url, clientID: "burst-publisher"),
            logger: Logger(label: "mqtt"))
        try await publisher.connect()

        let messages = (0..<2000).map { MQTTMessage(topic: "burst/\($0 % 50)", string: "\($0)", qos: .atLeastOnce) }
        try publisher.publish(messages)
        try await publisher.publishAndWait(MQTTMessage(topic: "burst/end", string: "end", qos: .atLeastOnce))

        _ = try await subscriber.waitFor(topic: "burst/end")
        let received = await subscriber.messages(on: "burst/#").filter { $0.topic != "burst/end" }
        #expect(received.compactMap(\.payloadString) == (0..<2000).map { "\($0)" })
        await publisher.disconnect()
        await subscriber.disconnect()
    }

    @Test(
        "eight tasks publishing at once, each writing to the socket itself: every message arrives, each task's in order"
    )
    func concurrentPublishers() async throws {
        let broker = try await MosquittoBroker()
        let subscriber = try await MQTTTestClient.connect(to: broker, subscribe: ["many/#"])
        let publisher = try MQTTClient(
            configuration: MQTTConfiguration(url: broker.url, clientID: "many-publishers"),
            logger: Logger(label: "mqtt"))
        try await publisher.connect()

        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for n in 0..<250 {
                        try publisher.publish(MQTTMessage(topic: "many/\(task)", string: "\(n)", qos: .atLeastOnce))
                    }
                }
            }
            try await group.waitForAll()
        }
        try await publisher.publishAndWait(MQTTMessage(topic: "many/end", string: "end", qos: .atLeastOnce))

        _ = try await subscriber.waitFor(topic: "many/end")
        for task in 0..<8 {
            let received = await subscriber.messages(on: "many/\(task)")
            #expect(received.compactMap(\.payloadString) == (0..<250).map { "\($0)" }, "task \(task)")
        }
        await publisher.disconnect()
        await subscriber.disconnect()
    }

    @Test("+ matches one level and # any number of levels, including the parent")
    func topicFilters() async throws {
        let broker = try await MosquittoBroker()
        let subscriber = try await MQTTTestClient.connect(to: broker, subscribe: ["home/+/temperature", "office/#"])
        let publisher = try await MQTTTestClient.connect(to: broker, subscribe: [])

        for topic in [
            "home/kitchen/temperature", "home/kitchen/humidity", "home/a/b/temperature", "office",
            "office/desk/lamp", "garden/temperature", "office/end",
        ] {
            try await publisher.publish(topic, topic)
        }

        _ = try await subscriber.waitFor(topic: "office/end")
        let topics = await subscriber.allMessages.map(\.topic)
        #expect(topics == ["home/kitchen/temperature", "office", "office/desk/lamp", "office/end"])
        await publisher.disconnect()
        await subscriber.disconnect()
    }

    @Test("after unsubscribe, messages on that filter no longer arrive")
    func unsubscribe() async throws {
        let broker = try await MosquittoBroker()
        let subscriber = try await MQTTTestClient.connect(to: broker, subscribe: ["noisy/#", "marker"])
        try await subscriber.publish("noisy/a", "before")
        _ = try await subscriber.waitFor(topic: "noisy/a")

        try await subscriber.client.unsubscribe(["noisy/#"])
        try await subscriber.publish("noisy/a", "after")
        try await subscriber.publish("marker", "done")
        _ = try await subscriber.waitFor(topic: "marker")

        #expect(await subscriber.messages(on: "noisy/#").compactMap(\.payloadString) == ["before"])
        await subscriber.disconnect()
    }
}
