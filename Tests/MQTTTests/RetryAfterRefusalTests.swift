import Foundation
import HAP2MQTTTesting
import Logging
import MQTT
import Testing

@Suite("connect() again after a failed first connection")
struct RetryAfterRefusalTests {
    @Test("a broker that starts after a refused connect() is reached by the next connect() at once")
    func brokerStartsLater() async throws {
        let broker = try await MosquittoBroker()
        await broker.stop()
        var configuration = MQTTConfiguration(url: broker.url, clientID: "late-\(UUID().uuidString.prefix(6))")
        configuration.connectTimeout = .seconds(10)
        let client = try MQTTClient(configuration: configuration, logger: Logger(label: "mqtt"))
        await #expect(throws: MQTTError.self) { try await client.connect() }
        await #expect(throws: MQTTError.self) { try await client.connect() }
        try await broker.restart()
        let started = ContinuousClock.now
        try await client.connect()
        #expect(ContinuousClock.now - started < .seconds(3), "the retry did not wait for a time-out")
        #expect(client.isConnected)
        await client.disconnect()
        await broker.stop()
    }
}
