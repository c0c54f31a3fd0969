import Foundation
import Gateway
import HAP2MQTTTesting
import HomeModel
import HomeStore
import MQTT
import SystemSupport
import Testing

/// The discovery format and its migration as a Home Assistant on the broker sees them: the gateway runs
/// against a real mosquitto, stops and starts again with the same state directory, and a client records
/// what reaches `homeassistant/#` and in which order.
@Suite("Home Assistant: discovery format migration on a real broker", .serialized)
struct DiscoveryMigrationGatewayTests {
    static let marker = #"{"migrate_discovery":true}"#

    /// A broker and a state directory that outlive the gateway runs of one test.
    final class Setup: Stoppable {
        let broker: MosquittoBroker
        let directory: URL
        let observer: MQTTTestClient

        init() async throws {
            broker = try await MosquittoBroker()
            directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "hap2mqtt-migration-\(UUID().uuidString)")
            do {
                observer = try await MQTTTestClient.connect(
                    to: broker, subscribe: ["homeassistant/#", "hap2mqtt/bridge/#"])
            } catch {
                await broker.stop()
                throw error
            }
        }

        var stateDirectory: StateDirectory { StateDirectory(path: directory.path) }

        /// What the state directory records.
        func record() throws -> String? {
            try stateDirectory.read("homeassistant-discovery.json").map { String(decoding: $0, as: UTF8.self) }
        }

        /// Runs a gateway with `format` until `body` returns, then stops it.
        func run(format: DiscoveryFormat?, _ body: (Gateway) async throws -> Void = { _ in }) async throws {
            let log = LogCapture()
            let (_, store) = await GatewayFixture.store(
                GatewayFixture.accessories(), autoSync: true, writeTimeout: .seconds(10), homes: [Home(name: "Home")],
                log: log)
            var configuration = MQTTConfiguration(url: broker.url, clientID: "gateway-\(UUID().uuidString.prefix(6))")
            configuration.will = Gateway.lastWill(baseTopic: "hap2mqtt")
            let mqtt = try MQTTClient(configuration: configuration, logger: log.logger(label: "mqtt"))
            try await mqtt.connect()
            let gateway = Gateway(
                configuration: GatewayConfiguration(
                    version: "test", stateDirectory: stateDirectory, mqttSummary: ["url": broker.url],
                    homeAssistant: HomeAssistantConfiguration(
                        birthDelay: .milliseconds(10)...(.milliseconds(20)), format: format)),
                store: store, mqtt: mqtt, logger: log.logger(label: "gateway"))
            await store.start()
            let runner = Task { await gateway.run() }
            do {
                _ = try await observer.waitFor(topic: "hap2mqtt/bridge/state") {
                    $0.payloadString == #"{"state":"online"}"#
                }
                try await body(gateway)
            } catch {
                await stopRun(gateway, runner, mqtt, store)
                throw error
            }
            await stopRun(gateway, runner, mqtt, store)
        }

        private func stopRun(_ gateway: Gateway, _ runner: Task<Void, Never>, _ mqtt: MQTTClient, _ store: HomeStore)
            async
        {
            await gateway.stop()
            runner.cancel()
            await mqtt.disconnect()
            await store.stop()
        }

        /// Waits until `bridge/info` shows the discovery settled in `format`.
        func waitUntilSettled(_ format: DiscoveryFormat) async throws {
            _ = try await observer.waitFor(topic: "hap2mqtt/bridge/info", timeout: .seconds(60)) {
                ($0.payloadString ?? "").contains(#""homeassistant":{"format":"\#(format.rawValue)"}"#)
            }
        }

        /// The retained discovery topics on the broker now, with their payloads.
        func retainedConfigs() async throws -> [String: String] {
            try await MQTTTestClient.retainedSnapshot(of: broker, ["homeassistant/#"])
        }

        func stop() async {
            await observer.disconnect()
            await broker.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    static func isDeviceTopic(_ topic: String) -> Bool { topic.hasPrefix("homeassistant/device/") }

    @Test("per entity to device: every old topic announced, then cleared, then the device configs")
    func entityToDevice() async throws {
        try await withStopping(try await Setup()) { setup in
            try await setup.run(format: .entity) { _ in try await setup.waitUntilSettled(.entity) }
            let old = try await setup.retainedConfigs()
            #expect(old.count > 10 && !old.keys.contains(where: Self.isDeviceTopic), "\(old.keys.sorted())")
            #expect(try setup.record() == #"{"format":"entity"}"#)

            await setup.observer.clear()
            try await setup.run(format: .device) { _ in try await setup.waitUntilSettled(.device) }
            let seen = await setup.observer.messages(on: "homeassistant/#")
            let markers = seen.indices.filter { seen[$0].payloadString == Self.marker }
            let configs = seen.indices.filter { Self.isDeviceTopic(seen[$0].topic) && !seen[$0].payload.isEmpty }
            let clears = seen.indices.filter { !Self.isDeviceTopic(seen[$0].topic) && seen[$0].payload.isEmpty }
            #expect(Set(markers.map { seen[$0].topic }) == Set(old.keys), "every old config is announced")
            #expect(Set(clears.map { seen[$0].topic }).isSuperset(of: old.keys), "and cleared")
            #expect(Set(configs.map { seen[$0].topic }).count == 5, "one per accessory and the gateway's own")
            #expect((markers.max() ?? .max) < (clears.min() ?? -1), "every old config announced, then cleared")
            #expect((clears.max() ?? .max) < (configs.min() ?? -1), "before any device config")
            #expect(
                !seen.contains {
                    !Self.isDeviceTopic($0.topic) && !$0.payload.isEmpty && $0.payloadString != Self.marker
                }, "no per-entity config is published again")
            let now = try await setup.retainedConfigs()
            #expect(now.keys.allSatisfy(Self.isDeviceTopic) && now.count == 5, "\(now.keys.sorted())")
            #expect(try setup.record() == #"{"format":"device"}"#)

            // Unset again: the recorded format stays; Home Assistant's birth brings device configs only.
            await setup.observer.clear()
            try await setup.run(format: nil) { _ in
                let bridge = "homeassistant/device/hap2mqtt_bridge_hap2mqtt/config"
                _ = try await setup.observer.waitFor(topic: bridge)
                try await setup.observer.publish("homeassistant/status", "online")
                try await eventually("the birth is answered") {
                    await setup.observer.messages(on: bridge).count >= 2
                }
            }
            let republished = await setup.observer.messages(on: "homeassistant/#").map(\MQTTMessage.topic).filter {
                $0 != "homeassistant/status"
            }
            #expect(republished.allSatisfy(Self.isDeviceTopic), "\(republished)")
        }
    }

    @Test("device back to per entity by a bridge request: the device configs announced, cleared, then the entities")
    func deviceToEntityByRequest() async throws {
        try await withStopping(try await Setup()) { setup in
            try await setup.run(format: nil) { gateway in
                try await setup.waitUntilSettled(.device)
                #expect(try setup.record() == #"{"format":"device"}"#, "a new installation takes device configs")
                let devices = try await setup.retainedConfigs()
                #expect(devices.count == 5 && devices.keys.allSatisfy(Self.isDeviceTopic))

                await setup.observer.clear()
                try await setup.observer.publish(
                    "hap2mqtt/bridge/request/homeassistant_migrate", #"{"format":"entity"}"#)
                let answer = try await setup.observer.waitFor(topic: "hap2mqtt/bridge/response/homeassistant_migrate")
                #expect(answer.payloadString?.contains(#""from":"device","to":"entity""#) == true, "\(answer)")
                try await setup.waitUntilSettled(.entity)
                let seen = await setup.observer.messages(on: "homeassistant/#")
                let markers = seen.indices.filter { seen[$0].payloadString == Self.marker }
                let configs = seen.indices.filter { !Self.isDeviceTopic(seen[$0].topic) && !seen[$0].payload.isEmpty }
                let clears = seen.indices.filter { Self.isDeviceTopic(seen[$0].topic) && seen[$0].payload.isEmpty }
                #expect(Set(markers.map { seen[$0].topic }) == Set(devices.keys))
                #expect(Set(clears.map { seen[$0].topic }) == Set(devices.keys))
                #expect((markers.max() ?? .max) < (clears.min() ?? -1))
                #expect((clears.max() ?? .max) < (configs.min() ?? -1))
                let now = try await setup.retainedConfigs()
                #expect(now.count > 10 && !now.keys.contains(where: Self.isDeviceTopic))

                // Already there, a bad format, and no JSON: clear answers, nothing changes.
                for (request, expected) in [
                    (#"{"format":"entity"}"#, #""status":"ok""#), (#"{"format":"both"}"#, "give the format"),
                    ("{", "must be a JSON object"),
                ] {
                    await setup.observer.clear()
                    try await setup.observer.publish("hap2mqtt/bridge/request/homeassistant_migrate", request)
                    let reply = try await setup.observer.waitFor(
                        topic: "hap2mqtt/bridge/response/homeassistant_migrate")
                    #expect(reply.payloadString?.contains(expected) == true, "\(request): \(reply)")
                }
                #expect(await setup.observer.messages(on: "homeassistant/#").isEmpty)
                _ = gateway
            }
            #expect(try setup.record() == #"{"format":"entity"}"#)
        }
    }

    @Test(
        "a migration cut short goes on at the next start from the recorded step; a request against the setting is refused"
    )
    func interrupted() async throws {
        try await withStopping(try await Setup()) { setup in
            try await setup.run(format: .entity) { _ in try await setup.waitUntilSettled(.entity) }
            let old = try await setup.retainedConfigs()
            // As a run stopped after its device configs went out, before it cleared the old topics.
            try setup.stateDirectory.write(
                Data(#"{"format":"entity","migrating_to":"device","step":"clear"}"#.utf8),
                to: "homeassistant-discovery.json")
            await setup.observer.clear()
            try await setup.run(format: .entity) { _ in
                // The setting asks for entity again: the move back follows the migration it interrupted.
                try await setup.waitUntilSettled(.entity)
            }
            let seen = await setup.observer.messages(on: "homeassistant/#")
            let firstMarker = seen.firstIndex { $0.payloadString == Self.marker } ?? -1
            let clears = seen.prefix(upTo: max(firstMarker, 0)).filter { $0.payload.isEmpty }.map(\.topic)
            #expect(Set(clears).isSuperset(of: old.keys), "the interrupted run's clear step was done first")
            #expect(try setup.record() == #"{"format":"entity"}"#)

            await setup.observer.clear()
            try await setup.run(format: .entity) { _ in
                try await setup.observer.publish(
                    "hap2mqtt/bridge/request/homeassistant_migrate", #"{"format":"device"}"#)
                let reply = try await setup.observer.waitFor(topic: "hap2mqtt/bridge/response/homeassistant_migrate")
                #expect(
                    reply.payloadString?.contains("homeassistant.discovery_format is entity in the configuration")
                        == true,
                    "\(reply)")
            }
            #expect(try setup.record() == #"{"format":"entity"}"#)
        }
    }
}
