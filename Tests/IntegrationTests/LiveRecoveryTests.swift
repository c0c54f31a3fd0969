import Foundation
import HAP2MQTTTesting
import HomeModel
import MQTT
import Testing

/// Recovery without restarting anything: the accessory, the broker or the gateway goes away and comes
/// back; the pairing is removed on the accessory.
@Suite("hap2mqtt run with a real accessory: availability and recovery", .serialized)
struct LiveRecoveryTests {
    static let slugs = ["hap2mqtt_test_bridge", "light", "switch", "temperature", "lock", "thermostat", "blind"]

    @Test(
        "the accessory is killed: offline; started again: online with re-read values, events, and removed accessories cleared"
    )
    func accessoryRestart() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        try await live.accessory.setValue(accessory: "Light", characteristic: "Brightness", value: .int(42))
        try await live.waitFor("hap2mqtt/light/lightbulb/brightness", "42")
        // Changed while the gateway is connected; it learns of it only at the next fetch of /accessories.
        try await live.accessory.removeAccessory("Switch")
        try await live.accessory.addAccessory("Porch", kind: .light)
        await live.observer.clear()

        await live.accessory.kill()
        for slug in Self.slugs {
            try await live.waitFor("hap2mqtt/\(slug)/availability", "offline")
        }
        // Each accessory's bridge/event follows its availability message, so the last may still be on its way.
        func offlineEvents() async -> [String] {
            await live.observer.messages(on: "hap2mqtt/bridge/event").compactMap(\.payloadString).filter {
                $0.contains(#""type":"availability""#) && $0.contains(#""state":"offline""#)
            }
        }
        try await eventually("an offline event for every accessory", timeout: .seconds(30)) {
            await offlineEvents().count >= Self.slugs.count
        }
        let events = await offlineEvents()
        #expect(events.count == Self.slugs.count, "\(events)")
        #expect(
            try await live.bridgeState() == "online",
            "one accessory down is not the gateway down")

        try await live.accessory.start()
        for slug in Self.slugs where slug != "switch" {
            try await live.waitFor("hap2mqtt/\(slug)/availability", "online", timeout: .seconds(30))
        }
        // A fresh HAP-python process starts from its defaults: the re-read value replaces 42.
        try await live.waitFor("hap2mqtt/light/lightbulb/brightness", "0")
        try await eventually("the removed accessory's topics to be cleared", timeout: .seconds(30)) {
            try await live.retainedSnapshot().keys.filter { $0.hasPrefix("hap2mqtt/switch") }.isEmpty
        }
        let removed = await live.observer.messages(on: "hap2mqtt/bridge/event").compactMap(\.payloadString)
        #expect(
            removed.contains { $0.contains(#""type":"accessory_removed""#) && $0.contains(#""accessory":"switch""#) },
            "\(removed)")
        try await eventually("the added accessory to get its topics", timeout: .seconds(30)) {
            try await live.retained("hap2mqtt/porch/lightbulb/on") == "false"
        }
        // bridge/accessories follows the batch that made the topics, in a step of its own.
        let listed = ["Blind", "Light", "Lock", "Porch", "Temperature", "Thermostat", "hap2mqtt Test Bridge"]
        try await eventually("bridge/accessories to list Porch and not Switch", timeout: .seconds(30)) {
            try await live.accessoryList().map(\.name).sorted() == listed
        }

        try await live.accessory.setValue(
            accessory: "Temperature", characteristic: "CurrentTemperature", value: .float(19.5))
        try await live.waitFor("hap2mqtt/temperature/temperature_sensor/current_temperature", "19.5")
        try await live.publish("hap2mqtt/light/lightbulb/on/set", "true")
        try await live.waitFor("hap2mqtt/light/lightbulb/on/set/result", #"{"status":"ok","value":true}"#)
        #expect(live.gateway.isRunning)
        await live.stop()
    }

    @Test(
        "the broker is killed and restarted without persistence: bridge/state online, every retained topic back, /set works"
    )
    func brokerRestart() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        let before = try await live.retainedSnapshot()
        #expect(before.count > 50)
        await live.broker.kill()
        try await live.broker.restart()
        try await eventually("bridge/state online after the broker restart", timeout: .seconds(30)) {
            (try? await live.bridgeState()) == "online"
        }
        try await eventually("every retained topic to be back", timeout: .seconds(30)) {
            try await live.retainedSnapshot() == before
        }
        try await eventually("the observer to be back", timeout: .seconds(30)) {
            await live.observer.connectionEvents.contains {
                if case .connected(reconnect: true) = $0 { true } else { false }
            }
        }
        try await live.observer.subscribe(["hap2mqtt/#"])
        try await live.publish("hap2mqtt/switch/switch/on/set", "on")
        try await live.waitFor("hap2mqtt/switch/switch/on/set/result", #"{"status":"ok","value":true}"#)
        #expect(
            try await live.accessory.waitForSetterCalls(count: 1) == [
                .init(accessory: "Switch", characteristic: "On", value: .bool(true))
            ])
        await live.stop()
    }

    @Test(
        "the gateway is killed with SIGKILL: bridge/state offline; started again it reconnects from the saved pairing with the same topics"
    )
    func gatewayRestart() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        let before = try await live.retainedSnapshot()
        let files = try FileManager.default.contentsOfDirectory(atPath: live.gateway.stateDirectory.path).sorted()
        await live.observer.clear()
        await live.gateway.kill()
        try await live.waitForBridgeState("offline", timeout: .seconds(15))
        #expect(try await live.bridgeState() == "offline")

        await live.observer.clear()
        try live.gateway.start()
        try await live.waitUntilOnline()
        let after = try await live.retainedSnapshot()
        let differing = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }.sorted()
        #expect(differing.isEmpty, "\(differing.map { "\($0): \(before[$0] ?? "nil") → \(after[$0] ?? "nil")" })")
        #expect(try FileManager.default.contentsOfDirectory(atPath: live.gateway.stateDirectory.path).sorted() == files)
        try await live.publish("hap2mqtt/light/lightbulb/on/set", "true")
        try await live.waitFor("hap2mqtt/light/lightbulb/on/set/result", #"{"status":"ok","value":true}"#)
        await live.stop()
    }

    @Test("started while the accessory is down, its cached accessories appear offline, and come online when it is back")
    func startWhileDown() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        await live.gateway.stop()
        await live.accessory.stop()
        await live.observer.clear()

        try live.gateway.start()
        try await live.waitForBridgeState("online", timeout: .seconds(20))
        let published = try await live.next(on: "hap2mqtt/bridge/accessories")
        let list = try JSONDecoder().decode([BridgeAccessory].self, from: Data(published.payload))
        #expect(list.map(\.slug).sorted() == Self.slugs.sorted())
        #expect(list.allSatisfy { !$0.reachable })
        for slug in Self.slugs {
            let availability = await live.observer.messages(on: "hap2mqtt/\(slug)/availability").compactMap(
                \.payloadString)
            #expect(availability == ["offline"], "\(slug) was never shown online: \(availability)")
        }

        try await live.accessory.start()
        for slug in Self.slugs {
            try await live.waitFor("hap2mqtt/\(slug)/availability", "online", timeout: .seconds(30))
        }
        try await live.waitFor("hap2mqtt/light/lightbulb/on", "false")
        await live.stop()
    }

    @Test("the pairing removed on the accessory: a clear error, offline, still running, no reconnect loop")
    func pairingRemoved() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        await live.observer.clear()
        try await live.accessory.resetPairings()
        for slug in Self.slugs {
            try await live.waitFor("hap2mqtt/\(slug)/availability", "offline")
        }
        try await eventually("the error that says what to do", timeout: .seconds(30)) {
            live.gateway.log.contains("pair again with hap2mqtt pair")
                || live.gateway.log.contains("Pair again with hap2mqtt pair")
        }
        let attempts = live.gateway.log.components(separatedBy: "hap: connecting to").count
        try await Task.sleep(for: .seconds(3))
        #expect(
            live.gateway.log.components(separatedBy: "hap: connecting to").count == attempts,
            "no new attempts after the refusal")
        #expect(live.gateway.isRunning)
        #expect(try await live.bridgeState() == "online")
        let errors = live.gateway.log.split(separator: "\n").filter {
            $0.contains(" error ") && $0.contains("no longer accepts this controller")
        }
        #expect(errors.count == 1, "\(errors)")
        await live.stop()
    }
}
