import Foundation
import HAP2MQTTTesting
import Logging
import MQTT
import Synchronization
import Testing

@Suite("A persistent session keeps QoS 1 messages while the client reconnects")
struct PersistentSessionTests {
    @Test(
        "no QoS 1 message the broker accepted is lost across 10 broker restarts",
        arguments: [MQTTProtocolVersion.v5, .v311])
    func noLossAcrossRestarts(version: MQTTProtocolVersion) async throws {
        let broker = try await MosquittoBroker(options: .init(persistent: true))
        let receiver = try await MQTTTestClient.connect(to: broker.url, subscribe: ["commands/#"]) {
            $0.protocolVersion = version
            $0.sessionExpiry = .seconds(60)
        }
        let sender = try await MQTTTestClient.connect(to: broker.url, subscribe: [])
        let publisher = NumberedPublisher(client: sender.client) {
            MQTTMessage(topic: "commands/\($0)", string: "\($0)", qos: .atLeastOnce)
        }
        publisher.start()
        for restart in 1...10 {
            let before = publisher.accepted.count
            try await eventually("more messages are accepted before restart \(restart)") {
                publisher.accepted.count >= before + 3
            }
            try await broker.restart()
        }
        try await eventually("messages are accepted after the last restart") { publisher.accepted.count >= 40 }
        await publisher.stop()
        let accepted = publisher.accepted
        try await eventually("every accepted message arrived (\(accepted.count) accepted)", timeout: .seconds(60)) {
            Set(await receiver.messages(on: "commands/#").compactMap { Int($0.payloadString ?? "") }).isSuperset(
                of: accepted)
        }
        await sender.disconnect()
        await receiver.disconnect()
        await broker.stop()
    }

    @Test("a persistent session needs a client id and a session expiry of at least a second")
    func configurationChecks() {
        var noID = MQTTConfiguration(url: "mqtt://127.0.0.1", clientID: "")
        noID.sessionExpiry = .seconds(60)
        #expect(throws: MQTTError.self) { try MQTTClient(configuration: noID, logger: Logger(label: "test")) }
        var zero = MQTTConfiguration(url: "mqtt://127.0.0.1", clientID: "gateway")
        zero.sessionExpiry = .zero
        #expect(throws: MQTTError.self) { try MQTTClient(configuration: zero, logger: Logger(label: "test")) }
    }
}
