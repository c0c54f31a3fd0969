import Foundation
import HAP2MQTTTesting
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
}
