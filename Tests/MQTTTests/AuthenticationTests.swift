import Foundation
import HAP2MQTTTesting
import Logging
import MQTT
import Testing

@Suite("User name and password against a broker with a password file")
struct AuthenticationTests {
    private static let users = ["gateway": "correct horse", "observer": "battery staple"]

    @Test("the right user name and password connect and can publish")
    func rightPassword() async throws {
        let broker = try await MosquittoBroker(options: .init(users: Self.users))
        let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["secure/#"]) {
            $0.username = "observer"
            $0.password = "battery staple"
        }
        let gateway = try await MQTTTestClient.connect(to: broker, subscribe: []) {
            $0.username = "gateway"
            $0.password = "correct horse"
        }

        try await gateway.publish("secure/state", "fine")
        #expect(try await observer.waitFor(topic: "secure/state").payloadString == "fine")
        await gateway.disconnect()
        await observer.disconnect()
    }

    @Test(
        "a wrong password is refused with the broker's own reason",
        arguments: [
            // mosquitto 2.0 answers a bad password with 0x87 "Not authorized" rather than 0x86.
            (MQTTProtocolVersion.v5, 0x87, "Not authorized"),
            (MQTTProtocolVersion.v311, 5, "Connection Refused: not authorised."),
        ])
    func wrongPassword(version: MQTTProtocolVersion, code: Int, reason: String) async throws {
        let broker = try await MosquittoBroker(options: .init(users: Self.users))
        var configuration = MQTTConfiguration(url: broker.url, clientID: "refused-\(version)")
        configuration.protocolVersion = version
        configuration.username = "gateway"
        configuration.password = "wrong"
        let client = try MQTTClient(configuration: configuration, logger: Logger(label: "mqtt"))

        let error = await #expect(throws: MQTTError.self) { try await client.connect() }

        #expect(error == .connectionRefused(code: code, reason: reason))
        #expect(error?.description == "MQTT broker refused the connection (\(code)): \(reason)")
        await client.disconnect()
    }

    @Test("an anonymous client is refused each time it tries, and stays unconnected")
    func anonymousRefused() async throws {
        let broker = try await MosquittoBroker(options: .init(users: Self.users))
        let client = try MQTTClient(
            configuration: MQTTConfiguration(url: broker.url, clientID: "anonymous"), logger: Logger(label: "mqtt"))

        for _ in 1...2 {
            await #expect(throws: MQTTError.connectionRefused(code: 0x87, reason: "Not authorized")) {
                try await client.connect()
            }
        }
        #expect(!client.isConnected)
        #expect(throws: MQTTError.notConnected) {
            try client.publish(MQTTMessage(topic: "x", string: "y"))
        }
        await client.disconnect()
    }
}
