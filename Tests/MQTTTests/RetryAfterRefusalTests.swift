import Foundation
import HAP2MQTTTesting
import Logging
import MQTT
import Testing

@Suite("connect() again after a failed first connection")
struct RetryAfterRefusalTests {
    // A connect() that waited for its time-out (10 minutes) would run past the time limit; no clock is read.
    @Test(
        "a broker that starts after a refused connect() is reached by the next connect() at once",
        .timeLimit(.minutes(2)))
    func brokerStartsLater() async throws {
        let broker = try await MosquittoBroker()
        await broker.stop()
        var configuration = MQTTConfiguration(url: broker.url, clientID: "late-\(UUID().uuidString.prefix(6))")
        configuration.connectTimeout = .seconds(600)
        let client = try MQTTClient(configuration: configuration, logger: Logger(label: "mqtt"))
        await #expect(throws: MQTTError.self) { try await client.connect() }
        await #expect(throws: MQTTError.self) { try await client.connect() }
        try await broker.restart()
        try await client.connect()
        #expect(client.isConnected)
        await client.disconnect()
        await broker.stop()
    }
}
