import Foundation
import HAP2MQTTTesting
import Logging
import MQTT
import Testing

@Suite("Errors a user can act on, before and during connecting")
struct ConfigurationErrorTests {
    @Test(
        "URLs that are not mqtt://host[:port] or mqtts://host[:port] are refused",
        arguments: [
            "127.0.0.1:1883", "http://127.0.0.1", "mqtt://", "mqtt://:1883", "mqtt://host:0", "mqtt://host:65536",
            "mqtt://host:port", "mqtt://user:secret@host", "mqtt://host/path", "mqtt://::1", "mqtt://[::1",
            "mqtt://[::1]x",
        ])
    func invalidURL(url: String) {
        #expect {
            try MQTTClient(configuration: MQTTConfiguration(url: url, clientID: "x"), logger: Logger(label: "mqtt"))
        } throws: { error in
            guard case .invalidURL(let text) = error as? MQTTError else { return false }
            return text.hasPrefix(url)
        }
    }

    @Test(
        "well-formed URLs are accepted",
        arguments: [
            "mqtt://127.0.0.1", "mqtt://127.0.0.1:1883/", "MQTT://broker.local:1884", "mqtt://[::1]:1883",
            "mqtt://[::1]",
        ])
    func validURL(url: String) throws {
        _ = try MQTTClient(configuration: MQTTConfiguration(url: url, clientID: "x"), logger: Logger(label: "mqtt"))
    }

    @Test("TLS files must exist and belong to an mqtts:// URL; keep-alive must be 0 or 5...65535 s")
    func invalidConfiguration() throws {
        var missingCA = MQTTConfiguration(url: "mqtts://127.0.0.1", clientID: "x")
        missingCA.tls.caFile = "/nonexistent/ca.pem"
        var plainWithCA = MQTTConfiguration(url: "mqtt://127.0.0.1", clientID: "x")
        plainWithCA.tls.caFile = "/etc/hostname"
        var keyWithoutCertificate = MQTTConfiguration(url: "mqtts://127.0.0.1", clientID: "x")
        keyWithoutCertificate.tls.keyFile = "/etc/hostname"
        var shortKeepAlive = MQTTConfiguration(url: "mqtt://127.0.0.1", clientID: "x")
        shortKeepAlive.keepAlive = 3
        var badWill = MQTTConfiguration(url: "mqtt://127.0.0.1", clientID: "x")
        badWill.will = MQTTMessage(topic: "state/#", string: "offline")

        for configuration in [missingCA, plainWithCA, keyWithoutCertificate, shortKeepAlive] {
            #expect {
                try MQTTClient(configuration: configuration, logger: Logger(label: "mqtt"))
            } throws: { error in
                if case .invalidConfiguration = error as? MQTTError { true } else { false }
            }
        }
        #expect {
            try MQTTClient(configuration: badWill, logger: Logger(label: "mqtt"))
        } throws: { error in
            if case .invalidTopic = error as? MQTTError { true } else { false }
        }
    }

    @Test(
        "publishing to a topic with a wildcard, NUL or nothing is refused, without costing the rest of a batch; so are malformed filters"
    )
    func invalidTopics() async throws {
        let broker = try await MosquittoBroker()
        let client = try MQTTClient(
            configuration: MQTTConfiguration(url: broker.url, clientID: "topics"), logger: Logger(label: "mqtt"))
        try await client.connect()

        for topic in ["a/+/b", "a/#", "#", "", "a\u{0}b"] {
            #expect {
                try client.publish(MQTTMessage(topic: topic, string: "x"))
            } throws: { error in
                if case .invalidTopic = error as? MQTTError { true } else { false }
            }
        }
        for filter in ["a/#/b", "a+", "a/b#", ""] {
            await #expect {
                try await client.subscribe([filter])
            } throws: { error in
                if case .invalidTopic = error as? MQTTError { true } else { false }
            }
        }
        // A bad message in a batch is left out; the others are sent, and its error is thrown after.
        let watcher = try await MQTTTestClient.connect(to: broker, subscribe: ["fine", "also-fine"])
        #expect {
            try client.publish([
                MQTTMessage(topic: "fine", string: "1"), MQTTMessage(topic: "bad/+", string: "2"),
                MQTTMessage(topic: "also-fine", string: "3"),
            ])
        } throws: { error in
            if case .invalidTopic = error as? MQTTError { true } else { false }
        }
        _ = try await watcher.waitFor(topic: "fine")
        _ = try await watcher.waitFor(topic: "also-fine")
        #expect(client.isConnected)
        await watcher.disconnect()
        await client.disconnect()
    }

    @Test("publish before connect() is notConnected; after disconnect() everything is closed")
    func lifecycleErrors() async throws {
        let broker = try await MosquittoBroker()
        let client = try MQTTClient(
            configuration: MQTTConfiguration(url: broker.url, clientID: "lifecycle"), logger: Logger(label: "mqtt"))
        #expect(throws: MQTTError.notConnected) { try client.publish(MQTTMessage(topic: "t", string: "x")) }
        await #expect(throws: MQTTError.notConnected) {
            try await client.publishAndWait(MQTTMessage(topic: "t", string: "x", qos: .atLeastOnce))
        }

        try await client.connect()
        try await client.connect()
        #expect(client.isConnected)
        await client.disconnect()

        #expect(!client.isConnected)
        #expect(throws: MQTTError.closed) { try client.publish(MQTTMessage(topic: "t", string: "x")) }
        await #expect(throws: MQTTError.closed) { try await client.subscribe(["t"]) }
        await #expect(throws: MQTTError.closed) { try await client.connect() }
        await client.disconnect()
    }

    @Test("nothing listening on the port: connect() fails with the system's reason")
    func connectionRefused() async throws {
        let port = try LoopbackSocket.freePort()
        let client = try MQTTClient(
            configuration: MQTTConfiguration(url: "mqtt://127.0.0.1:\(port)", clientID: "nobody-home"),
            logger: Logger(label: "mqtt"))

        let error = await #expect(throws: MQTTError.self) { try await client.connect() }

        #expect(error == .connectionFailed("Connection refused"))
        #expect(!client.isConnected)
    }

    @Test("a server that accepts TCP but never answers CONNECT: connect() times out")
    func connectTimeout() async throws {
        let silent = try SilentTCPServer()
        var configuration = MQTTConfiguration(url: silent.url, clientID: "impatient")
        configuration.connectTimeout = .milliseconds(500)
        let client = try MQTTClient(configuration: configuration, logger: Logger(label: "mqtt"))

        let error = await #expect(throws: MQTTError.self) { try await client.connect() }

        guard case .timedOut(let text) = error else {
            Issue.record("expected timedOut, got \(String(describing: error))")
            return
        }
        #expect(text.contains("no CONNACK"))
    }
}
