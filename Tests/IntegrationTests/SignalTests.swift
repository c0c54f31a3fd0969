import Foundation
import HAP2MQTTTesting
import MQTT
import Testing

/// What signals do to `hap2mqtt run` (docs/command-line.md "Signals"): the real binary, a real mosquitto and the real
/// HAP-python bridge. Every effect is polled for with a deadline.
@Suite("hap2mqtt run and its signals")
struct SignalTests {
    @Test("SIGHUP that changes only a key a restart applies says so in one line, never 'nothing changed'")
    func reloadNeedingRestart() async throws {
        let broker = try await MosquittoBroker()
        let gateway = try GatewayProcess(brokerURL: broker.url)
        let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/bridge/state"])
        try gateway.start()
        _ = try await observer.waitFor(topic: "hap2mqtt/bridge/state") { $0.bridgeState == "online" }
        let original = try String(contentsOf: gateway.configurationFile, encoding: .utf8)
        try TestFile.write(
            original.replacingOccurrences(of: "mqtt:\n", with: "mqtt:\n  password: changed\n"),
            to: gateway.configurationFile)
        try #require(kill(try #require(gateway.processIdentifier), SIGHUP) == 0)

        try await eventually("the reload is logged") { gateway.log.contains("reloaded the configuration") }
        let lines = gateway.log.split(separator: "\n").filter {
            $0.contains("reloaded the configuration") || $0.contains("applied only by a restart")
        }
        #expect(lines.count == 1, "\(lines)")
        #expect(
            lines.first?.hasSuffix(
                "warning hap2mqtt: received SIGHUP; reloaded the configuration: nothing applied now; "
                    + "changed but applied only by a restart: mqtt.password") == true, "\(lines)")
        await gateway.stop()
        await observer.disconnect()
        await broker.stop()
    }

    @Test(
        "SIGHUP applies the log level, an accessory's room and Home Assistant's exclusions, and names what needs a restart"
    )
    func reload() async throws {
        let live = try await LiveGateway.start(run: false)
        let gateway = live.gateway
        let original = try String(contentsOf: gateway.configurationFile, encoding: .utf8)
        try TestFile.write(
            original.replacingOccurrences(of: "log_level: debug", with: "log_level: info"),
            to: gateway.configurationFile)
        let discovery = try await MQTTTestClient.connect(to: live.broker, subscribe: ["homeassistant/#"])
        // The log file holds pair's output (at debug) before run's.
        let runStarts = gateway.log.utf8.count
        var runLog: String { String(decoding: Array(gateway.log.utf8.dropFirst(runStarts)), as: UTF8.self) }
        try gateway.start()
        try await live.waitUntilOnline()
        let light = try #require(try await live.accessoryList().first { $0.name == "Light" })
        // The Light's discovery configs: those whose entities read the Light's topics.
        try await eventually("the Light's discovery configs are published") {
            await !Self.configs(of: light.slug, in: discovery).isEmpty
        }
        let lightConfigs = await Self.configs(of: light.slug, in: discovery)
        #expect(!runLog.contains(" debug "))

        let clientID = try #require(original.split(separator: "\n").first { $0.contains("client_id:") })
        // Back to debug, the Light in the Office (in the homekit section, beside state_dir), the Light out of
        // discovery, and a new client id, which only a restart applies.
        let withAccessories =
            original
            .replacingOccurrences(of: String(clientID), with: "  client_id: hap2mqtt-renamed")
            .replacingOccurrences(
                of: "homekit:\n", with: "homekit:\n  accessories:\n    \"\(light.id)\": {room: Office}\n")
            + "\nhomeassistant:\n  exclude_accessories: [\(light.slug)]\n"
        try TestFile.write(withAccessories, to: gateway.configurationFile)
        await discovery.clear()
        try #require(kill(try #require(gateway.processIdentifier), SIGHUP) == 0)

        try await eventually("the reload is logged") {
            gateway.log.contains(
                "warning hap2mqtt: received SIGHUP; reloaded the configuration: applied homekit.accessories, "
                    + "homeassistant.exclude_accessories, log_level; changed but applied only by a restart: mqtt.client_id"
            )
        }
        try await eventually("bridge/accessories puts the Light in the Office") {
            guard let text = try await live.retained("hap2mqtt/bridge/accessories"),
                let list = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]]
            else { return false }
            return list.contains { $0["id"] as? String == light.id && $0["room"] as? String == "Office" }
        }
        try await eventually("every discovery config of the Light is cleared") {
            let cleared = Set(await discovery.allMessages.filter { $0.payload.isEmpty }.map(\.topic))
            return lightConfigs.isSubset(of: cleared)
        }
        // Debug lines now: a reconnect to the accessory logs one.
        try await live.accessory.disconnectClients()
        try await eventually("a debug line is logged") { runLog.contains(" debug ") }

        // A configuration that does not load changes nothing.
        try TestFile.write("mqtt:\n  qos: 7\n", to: gateway.configurationFile)
        try #require(kill(try #require(gateway.processIdentifier), SIGHUP) == 0)
        try await eventually("the failed reload is logged") {
            gateway.log.contains("received SIGHUP; cannot reload the configuration: ")
                && gateway.log.contains("mqtt.qos: expected 0, 1 or 2, got")
                && gateway.log.contains("the running configuration stays")
        }
        #expect(gateway.isRunning)
        #expect(try await live.bridgeState() == "online")
        await discovery.disconnect()
        await live.stop()
    }

    @Test("SIGUSR1 and SIGUSR2 are ignored with a log line; SIGINT still stops cleanly")
    func userSignals() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        let gateway = live.gateway
        let pid = try #require(gateway.processIdentifier)
        await live.observer.clear()
        try #require(kill(pid, SIGUSR1) == 0)
        try #require(kill(pid, SIGUSR2) == 0)
        try await eventually("both are logged") {
            gateway.log.contains(
                "received SIGUSR1; ignored (SIGINT and SIGTERM stop hap2mqtt, SIGHUP reloads its configuration)")
                && gateway.log.contains("received SIGUSR2; ignored")
        }
        #expect(gateway.isRunning)
        #expect(await live.observer.messages(on: "hap2mqtt/bridge/state").isEmpty, "bridge/state did not change")
        await gateway.interrupt()
        #expect(gateway.terminationStatus == 0, "\(gateway.log.suffix(2000))")
        #expect(try await live.bridgeState() == "offline")
        #expect(gateway.log.contains("received signal \(SIGINT); stopping"))
        await live.stop()
    }

    /// The config topics seen on `client` whose payload reads topics of the accessory `slug`.
    static func configs(of slug: String, in client: MQTTTestClient) async -> Set<String> {
        Set(
            await client.allMessages.filter {
                !$0.payload.isEmpty && ($0.payloadString ?? "").contains("\"hap2mqtt/\(slug)/")
            }.map(\.topic))
    }
}
