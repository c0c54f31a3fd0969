import Foundation
import HAP2MQTTTesting
import Logging
import MQTT
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("Last will: published when a client vanishes, not when it says goodbye")
struct LastWillTests {
    @Test("the will of a client process killed with SIGKILL is published and retained")
    func killedProcess() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["devices/#"])
        let output = broker.directory.appendingPathComponent("mosquitto_sub.out")
        let child = try ExternalTool.launch(
            "mosquitto_sub",
            [
                "-h", "127.0.0.1", "-p", String(broker.port), "-i", "doomed", "-t", "devices/doomed/commands",
                "--will-topic", "devices/doomed/state", "--will-payload", "offline", "--will-retain", "--will-qos", "1",
            ], output: output)
        defer { if child.isRunning { kill(child.processIdentifier, SIGKILL) } }
        // The broker has the will once it logs the CONNECT (mosquitto_sub buffers its own output).
        try await ExternalTool.waitFor("as doomed", in: broker.logFile)

        kill(child.processIdentifier, SIGKILL)

        let will = try await observer.waitFor(topic: "devices/doomed/state")
        #expect(will.payloadString == "offline")
        #expect(try await observer.retained("devices/doomed/state")?.payloadString == "offline")
        await observer.disconnect()
    }

    @Test("MQTTClient's own will fires when its connection is cut without DISCONNECT")
    func clientWillOnLostConnection() async throws {
        let broker = try await MosquittoBroker()
        let proxy = try TCPProxy(to: broker.port)
        let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["gateway/#"])
        let client = try MQTTClient(configuration: willConfiguration(url: proxy.url), logger: Logger(label: "mqtt"))
        try await client.connect()
        try await client.publishAndWait(
            MQTTMessage(topic: "gateway/state", string: "online", qos: .atLeastOnce, retain: true))
        _ = try await observer.waitFor(topic: "gateway/state") { $0.payloadString == "online" }

        proxy.stop()

        let will = try await observer.waitFor(topic: "gateway/state") { $0.payloadString == "offline" }
        #expect(will.qos == .atLeastOnce)
        #expect(try await observer.retained("gateway/state")?.payloadString == "offline")
        await client.disconnect()
        await observer.disconnect()
    }

    @Test("a clean disconnect() does not publish the will")
    func cleanDisconnect() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["gateway/#"])
        let client = try MQTTClient(configuration: willConfiguration(url: broker.url), logger: Logger(label: "mqtt"))
        try await client.connect()
        try await client.publishAndWait(
            MQTTMessage(topic: "gateway/state", string: "online", qos: .atLeastOnce, retain: true))

        await client.disconnect()

        let will = await observer.firstMessage(on: "gateway/state", within: .seconds(1)) {
            $0.payloadString == "offline"
        }
        #expect(will == nil)
        #expect(try await observer.retained("gateway/state")?.payloadString == "online")
        await observer.disconnect()
    }

    private func willConfiguration(url: String) -> MQTTConfiguration {
        var configuration = MQTTConfiguration(url: url, clientID: "gateway-with-will")
        configuration.will = MQTTMessage(topic: "gateway/state", string: "offline", qos: .atLeastOnce, retain: true)
        configuration.reconnectDelay = (.milliseconds(100), .milliseconds(500))
        return configuration
    }
}
