import Foundation
import HAP2MQTTTesting
import MQTT
import Testing

/// The real binary against a real broker: start, stop, crash, and a broker that goes away.
@Suite("hap2mqtt run: the process and its broker")
struct GatewayProcessTests {

    @Test("started with the example configuration, it connects and publishes bridge/state online")
    func exampleConfiguration() async throws {
        let broker = try await MosquittoBroker()
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Config/hap2mqtt.example.yaml")
        // The example serves the web page on 8780; here on a free port, as other tests run beside it.
        let gateway = try GatewayProcess(
            brokerURL: broker.url, environment: ["HAP2MQTT_MQTT_URL": broker.url, "HAP2MQTT_FRONTEND_PORT": "0"])
        try FileManager.default.removeItem(at: gateway.configurationFile)
        try FileManager.default.copyItem(at: example, to: gateway.configurationFile)
        let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/bridge/#"])
        try gateway.start()
        _ = try await observer.waitFor(topic: "hap2mqtt/bridge/state") { $0.bridgeState == "online" }
        let list = try await observer.waitFor(topic: "hap2mqtt/bridge/accessories")
        #expect(list.payloadString == "[]")
        await gateway.stop()
        #expect(gateway.terminationStatus == 0, "\(gateway.log)")
        await observer.disconnect()
        await broker.stop()
    }

    @Test("SIGTERM stops it cleanly: bridge/state offline, exit status 0")
    func cleanStop() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/bridge/state"])
        let gateway = try GatewayProcess(brokerURL: broker.url)
        try gateway.start()
        _ = try await observer.waitFor(topic: "hap2mqtt/bridge/state") { $0.bridgeState == "online" }
        await gateway.stop()
        #expect(gateway.terminationStatus == 0, "\(gateway.log)")
        #expect(try await observer.retained("hap2mqtt/bridge/state")?.bridgeState == "offline")
        #expect(!gateway.log.contains("will"), "a clean stop is not a crash")
        await observer.disconnect()
        await broker.stop()
    }

    @Test("SIGTERM while the broker is down: it still stops at once, with exit status 0")
    func stopWithoutBroker() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/bridge/state"])
        let gateway = try GatewayProcess(brokerURL: broker.url)
        try gateway.start()
        _ = try await observer.waitFor(topic: "hap2mqtt/bridge/state") { $0.bridgeState == "online" }
        await observer.disconnect()
        await broker.stop()
        let noticed = ContinuousClock.now + .seconds(10)
        while !gateway.log.contains("ended:"), ContinuousClock.now < noticed {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(gateway.log.contains("ended:"), "the gateway noticed the broker going away")
        let started = ContinuousClock.now
        await gateway.stop()
        let took = ContinuousClock.now - started
        #expect(gateway.terminationStatus == 0, "\(gateway.log)")
        #expect(took < .seconds(5), "stopping took \(took)")
        #expect(gateway.log.contains("left to the last will"))
    }

    @Test("killed with SIGKILL, the broker publishes its last will: bridge/state offline")
    func lastWill() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/bridge/state"])
        let gateway = try GatewayProcess(brokerURL: broker.url)
        try gateway.start()
        _ = try await observer.waitFor(topic: "hap2mqtt/bridge/state") { $0.bridgeState == "online" }
        await observer.clear()
        await gateway.kill()
        let will = try await observer.waitFor(topic: "hap2mqtt/bridge/state", timeout: .seconds(15))
        #expect(will.bridgeState == "offline")
        #expect(try await observer.retained("hap2mqtt/bridge/state")?.bridgeState == "offline")
        await observer.disconnect()
        await broker.stop()
    }

    @Test("the broker restarts without persistence: the gateway reconnects by itself and is online again")
    func brokerRestart() async throws {
        let broker = try await MosquittoBroker()
        let gateway = try GatewayProcess(brokerURL: broker.url)
        try gateway.start()
        let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/bridge/#"])
        _ = try await observer.waitFor(topic: "hap2mqtt/bridge/state") { $0.bridgeState == "online" }
        await broker.kill()
        try await broker.restart()
        try await eventually("bridge/state online after the broker restart", timeout: .seconds(20)) {
            (try? await observer.retained("hap2mqtt/bridge/state"))??.bridgeState == "online"
        }
        #expect(try await observer.retained("hap2mqtt/bridge/info") != nil, "bridge/info is back on the broker")
        #expect(try await observer.retained("hap2mqtt/bridge/accessories")?.payloadString == "[]")
        #expect(gateway.isRunning)
        await gateway.stop()
        await observer.disconnect()
        await broker.stop()
    }

    @Test(
        "mqtts:// trusting the system's CA store (here SSL_CERT_FILE) reconnects after a broker restart, with a warning"
    )
    func tlsSystemStoreRestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let authority = try await TestCertificateAuthority(name: "system-ca", in: directory)
        let broker = try await MosquittoBroker(options: .init(tls: try await authority.issueServerCertificate()))
        // No ca_file: the gateway trusts what OpenSSL calls the system's store, which SSL_CERT_FILE names.
        let gateway = try GatewayProcess(
            brokerURL: try #require(broker.tlsURL), environment: ["SSL_CERT_FILE": authority.caFile])
        try gateway.start()
        let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/bridge/state"])
        _ = try await observer.waitFor(topic: "hap2mqtt/bridge/state") { $0.bridgeState == "online" }
        await broker.kill()
        try await eventually("a failed reconnect is logged as a warning", timeout: .seconds(20)) {
            gateway.log.contains("warning mqtt: reconnecting to mqtts://")
        }
        try await broker.restart()
        try await eventually("bridge/state online after the broker restart", timeout: .seconds(30)) {
            (try? await observer.retained("hap2mqtt/bridge/state"))??.bridgeState == "online"
        }
        #expect(!gateway.log.contains("MOSQ_OPT_SSL_CTX_WITH_DEFAULTS"), "\(gateway.log)")
        #expect(gateway.isRunning)
        await gateway.stop()
        await observer.disconnect()
        await broker.stop()
    }

    @Test("SIGTERM before the broker was ever reached: one notice says so, and it exits with status 0")
    func signalBeforeBroker() async throws {
        let broker = try await MosquittoBroker()
        await broker.stop()
        let gateway = try GatewayProcess(brokerURL: broker.url)
        try gateway.start()
        try await eventually("a failed connect in the log", timeout: .seconds(20)) {
            gateway.log.contains("cannot connect to the MQTT broker")
        }
        await gateway.stop()
        #expect(gateway.terminationStatus == 0, "\(gateway.log)")
        #expect(
            gateway.log.contains("notice  hap2mqtt: received a signal before the broker could be reached; stopping"))
        #expect(gateway.log.contains("info    hap2mqtt: stopped"))
    }

    @Test("a broker that is not up yet is waited for")
    func brokerLater() async throws {
        let broker = try await MosquittoBroker()
        await broker.stop()
        let gateway = try GatewayProcess(brokerURL: broker.url)
        try gateway.start()
        try await Task.sleep(for: .milliseconds(1500))
        #expect(gateway.isRunning)
        #expect(gateway.log.contains("cannot connect to the MQTT broker"))
        try await broker.restart()
        let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/bridge/state"])
        try await eventually("bridge/state online once the broker is up", timeout: .seconds(20)) {
            (try? await observer.retained("hap2mqtt/bridge/state"))??.bridgeState == "online"
        }
        await gateway.stop()
        #expect(gateway.terminationStatus == 0)
        await observer.disconnect()
        await broker.stop()
    }
}

@Suite("hap2mqtt run: the web page's port")
struct WebPagePortTests {
    @Test("with the web page's port taken, run stops at once with one line, before it reaches for the broker")
    func portTaken() async throws {
        let taken = try LoopbackListener.open()
        defer { taken.close() }
        // No broker listens here: run must stop before it tries.
        let gateway = try GatewayProcess(
            brokerURL: "mqtt://127.0.0.1:1", extraYAML: "frontend:\n  enabled: true\n  port: \(taken.port)")
        try gateway.start()
        try await eventually("hap2mqtt run to stop", timeout: .seconds(30)) { !gateway.isRunning }
        #expect(gateway.terminationStatus == 1)
        let line = gateway.log.split(separator: "\n").first { $0.hasPrefix("hap2mqtt: cannot start the web page") }
        #expect(
            line?.hasPrefix("hap2mqtt: cannot start the web page: cannot listen on 127.0.0.1:\(taken.port): ") == true)
        #expect(line?.hasSuffix("; change frontend.host or frontend.port") == true, "\(gateway.log)")
        #expect(!gateway.log.contains("cannot connect to the MQTT broker"))
    }
}

@Suite("hap2mqtt run: the first batch")
struct FirstBatchOrderTests {
    @Test("bridge/state online comes after bridge/info and bridge/accessories: seeing it means they are there")
    func onlineLast() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/#", "homeassistant/#"])
        let gateway = try GatewayProcess(brokerURL: broker.url)
        try gateway.start()
        _ = try await observer.waitFor(topic: "hap2mqtt/bridge/state") {
            $0.bridgeState == "online"
        }
        let topics = await observer.allMessages.map(\.topic)
        #expect(topics.contains("hap2mqtt/bridge/info") && topics.contains("hap2mqtt/bridge/accessories"), "\(topics)")
        #expect(topics.contains { $0.hasPrefix("homeassistant/") }, "the bridge's discovery config: \(topics)")
        #expect(topics.last == "hap2mqtt/bridge/state", "\(topics)")
        await gateway.stop()
        await observer.disconnect()
        await broker.stop()
    }
}
