import Foundation
import Gateway
import HAP2MQTTTesting
import HomeModel
import HomeStore
import MQTT
import Testing

/// What the gateway publishes for Home Assistant, seen on a real broker.
@Suite("Gateway: Home Assistant discovery on the broker")
struct GatewayDiscoveryTests {
    static let lampNode = "hap2mqtt_00_00_00_00_00_01_2"

    @Test("every accessory's configs are retained under the prefix, with the gateway's own device")
    func retainedConfigs() async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        let configs = try await h.retained(under: "homeassistant/#")
        let light = try #require(configs["homeassistant/light/\(Self.lampNode)/s8/config"].flatMap(jsonObject))
        #expect(light["command_topic"] as? String == "hap2mqtt/kitchen_lamp/lightbulb/on/set")
        #expect(light["hs_command_topic"] as? String == "hap2mqtt/kitchen_lamp/lightbulb/hs/set")
        #expect(configs.keys.contains { $0.hasPrefix("homeassistant/lock/hap2mqtt_00_00_00_00_00_01_3/") })
        #expect(configs.keys.contains { $0.hasPrefix("homeassistant/climate/hap2mqtt_00_00_00_00_00_01_4/") })
        #expect(configs.keys.contains { $0.hasPrefix("homeassistant/event/hap2mqtt_00_00_00_00_00_01_5/") })
        let bridge = try #require(configs["homeassistant/binary_sensor/hap2mqtt_bridge_hap2mqtt/connection_state/config"].flatMap(jsonObject))
        #expect(bridge["state_topic"] as? String == "hap2mqtt/bridge/state")
        #expect((light["device"] as? [String: Any])?["via_device"] as? String == "hap2mqtt_bridge_hap2mqtt")
        await h.stop()
    }

    @Test("the hs topic carries hue,saturation and follows either value")
    func hsState() async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        #expect(try await h.observer.retained("hap2mqtt/kitchen_lamp/lightbulb/hs")?.payloadString == "0,0")
        h.provider.changeValue(h.address(aid: 2, .Characteristic.hue), to: .float(200))
        _ = try await h.observer.waitFor(topic: "hap2mqtt/kitchen_lamp/lightbulb/hs") { $0.payloadString == "200,0" }
        h.provider.changeValue(h.address(aid: 2, .Characteristic.saturation), to: .float(55))
        _ = try await h.observer.waitFor(topic: "hap2mqtt/kitchen_lamp/lightbulb/hs") { $0.payloadString == "200,55" }
        await h.stop()
    }

    @Test("hue and saturation changed together give one hs message with both, never a colour in between")
    func hsTogether() async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        await h.observer.clear()
        h.provider.send(.values([
            ValueUpdate(address: h.address(aid: 2, .Characteristic.hue), value: .float(240), source: .event),
            ValueUpdate(address: h.address(aid: 2, .Characteristic.saturation), value: .float(100), source: .event),
        ]))
        _ = try await h.observer.waitFor(topic: "hap2mqtt/kitchen_lamp/lightbulb/hs") { $0.payloadString == "240,100" }
        try await Task.sleep(for: .milliseconds(300))
        #expect(await h.observer.messages(on: "hap2mqtt/kitchen_lamp/lightbulb/hs").compactMap(\.payloadString) == ["240,100"])
        await h.stop()
    }

    @Test("hs/set writes hue and saturation in one request, rounded to their steps; bad input writes nothing")
    func hsSet() async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        let hue = h.address(aid: 2, .Characteristic.hue), saturation = h.address(aid: 2, .Characteristic.saturation)
        let result = try await h.set("kitchen_lamp/lightbulb/hs", "30.4,71.6")
        #expect(jsonObject(result)?["status"] as? String == "ok" && jsonObject(result)?["value"] as? String == "30,72", "\(result.payloadString ?? "")")
        let writes = h.provider.writes
        #expect(writes.count == 1)
        #expect(writes.first.map { Dictionary(uniqueKeysWithValues: $0.map { ($0.address, $0.value) }) } == [hue: .float(30), saturation: .float(72)])
        _ = try await h.observer.waitFor(topic: "hap2mqtt/kitchen_lamp/lightbulb/hs") { $0.payloadString == "30,72" }
        for bad in ["red", "30", "400,50", "30,nan"] {
            let refused = try await h.set("kitchen_lamp/lightbulb/hs", bad)
            #expect(jsonObject(refused)?["status"] as? String == "error", "\(bad)")
        }
        #expect(h.provider.writes.count == 1)
        await h.stop()
    }

    @Test("Home Assistant's birth message brings every config and then every state again")
    func birth() async throws {
        let h = try await GatewayHarness(homeAssistant: HomeAssistantConfiguration(birthDelay: .milliseconds(200)...(.milliseconds(400))))
        try await h.waitUntilOnline()
        let retainedConfigs = try await h.allRetained(under: ["homeassistant/#"])
        try await h.observer.subscribe(["homeassistant/#"])
        await h.observer.clear()
        try await h.observer.publish("homeassistant/status", "online")
        try await h.observer.publish("homeassistant/status", "online")
        let state = try await h.observer.waitFor(topic: "hap2mqtt/kitchen_lamp/lightbulb/on")
        // Live messages only: the retained copies the subscription brought may arrive after clear().
        let all = await h.observer.allMessages.filter { !$0.retain }
        let configIndexes = all.indices.filter { all[$0].topic.hasSuffix("/config") }
        let lightIndex = try #require(all.firstIndex { $0.topic == "homeassistant/light/\(Self.lampNode)/s8/config" })
        let stateIndex = try #require(all.firstIndex { $0 == state })
        #expect(lightIndex < stateIndex, "configs come before states")
        #expect(configIndexes.count > 10)
        try await Task.sleep(for: .milliseconds(800))
        var republished: [String: String] = [:]
        for m in await h.observer.messages(on: "homeassistant/#") where !m.retain && m.topic.hasSuffix("/config") {
            republished[m.topic] = m.payloadString
        }
        let differing = Set(republished.keys).union(retainedConfigs.keys).filter { republished[$0] != retainedConfigs[$0] }
        #expect(differing.isEmpty, "the configs sent again are the ones published at the start; these differ: \(differing.sorted())")
        #expect(await h.observer.messages(on: "homeassistant/light/+/+/config").filter { !$0.retain }.count == 1,
                "two births during the delay are answered once")
        await h.stop()
    }

    @Test("a removed accessory's configs are cleared; a renamed one keeps its configs, updated in place")
    func removeAndRename() async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        try await h.observer.subscribe(["homeassistant/#"])
        let lockConfigs = try await h.retained(under: "homeassistant/+/hap2mqtt_00_00_00_00_00_01_3/#")
        #expect(!lockConfigs.isEmpty)
        h.provider.remove(aid: 3)
        _ = try await h.observer.waitFor(topic: "hap2mqtt/bridge/event") { jsonObject($0)?["type"] as? String == "accessory_removed" }
        #expect(try await h.retained(under: "homeassistant/+/hap2mqtt_00_00_00_00_00_01_3/#").isEmpty)

        let topic = "homeassistant/light/\(Self.lampNode)/s8/config"
        await h.observer.clear()
        try await h.observer.publish("hap2mqtt/bridge/request/rename", #"{"accessory":"kitchen_lamp","to":"island_lamp"}"#)
        _ = try await h.observer.waitFor(topic: "hap2mqtt/bridge/response/rename")
        let updated = try await h.observer.waitFor(topic: topic) { !$0.payload.isEmpty }
        #expect(jsonObject(updated)?["command_topic"] as? String == "hap2mqtt/island_lamp/lightbulb/on/set")
        #expect(await h.observer.messages(on: topic).allSatisfy { !$0.payload.isEmpty }, "never cleared, so Home Assistant keeps the entity")
        #expect(try await h.observer.retained("hap2mqtt/kitchen_lamp/lightbulb/hs") == nil)
        await h.stop()
    }

    @Test("a new Name in the Home app renames the Home Assistant device; its topics stay")
    func nameChange() async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        try await h.observer.subscribe(["homeassistant/#"])
        h.provider.changeValue(h.address(aid: 2, .Characteristic.name), to: .string("Island Lamp"))
        let topic = "homeassistant/light/\(Self.lampNode)/s8/config"
        let config = try await h.observer.waitFor(topic: topic) { ((jsonObject($0)?["device"] as? [String: Any])?["name"] as? String) == "Island Lamp" }
        #expect(jsonObject(config)?["command_topic"] as? String == "hap2mqtt/kitchen_lamp/lightbulb/on/set")
        await h.stop()
    }

    @Test("exclusions leave out accessories and characteristics, and a custom prefix is used")
    func exclusions() async throws {
        let settings = HomeAssistantConfiguration(
            prefix: "ha", excludedAccessories: ["front_door", "00:00:00:00:00:01/5"],
            excludedCharacteristics: ["brightness", "hall_thermostat/thermostat/current_relative_humidity"])
        let h = try await GatewayHarness(homeAssistant: settings)
        try await h.waitUntilOnline()
        let configs = try await h.retained(under: "ha/#")
        #expect(try await h.retained(under: "homeassistant/#").isEmpty)
        #expect(!configs.keys.contains { $0.contains("_01_3/") || $0.contains("_01_5/") }, "\(configs.keys.sorted())")
        let light = try #require(configs["ha/light/\(Self.lampNode)/s8/config"].flatMap(jsonObject))
        #expect(light["brightness_command_topic"] == nil && light["hs_command_topic"] != nil)
        let climate = try #require(configs.first { $0.key.hasPrefix("ha/climate/") }.flatMap { jsonObject($0.value) })
        #expect(climate["current_humidity_topic"] == nil && climate["current_temperature_topic"] != nil)
        await h.stop()
    }

    @Test("with discovery off no config is published, and configs left from before are cleared")
    func discoveryOff() async throws {
        let broker = try await MosquittoBroker()
        let seeder = try await MQTTTestClient.connect(to: broker, subscribe: [])
        let stale = "homeassistant/light/\(Self.lampNode)/s8/config"
        try await seeder.publish(stale, #"{"name":null}"#, retain: true)
        await seeder.disconnect()
        let h = try await GatewayHarness(broker: broker, homeAssistant: HomeAssistantConfiguration(discovery: false))
        try await h.waitUntilOnline()
        #expect(try await h.retained(under: "homeassistant/#").isEmpty)
        await h.stop()
    }
}

extension GatewayHarness {
    /// The retained messages on topics matching `filter`: topic → payload.
    func retained(under filter: String) async throws -> [String: String] {
        let probe = try await MQTTTestClient.connect(to: broker, subscribe: [])
        let marker = "hap2mqtt-test/marker/\(UUID().uuidString)"
        try await probe.subscribe([filter, marker])
        try await probe.publish(marker, "marker")
        _ = try await probe.waitFor(topic: marker)
        var out: [String: String] = [:]
        for m in await probe.messages(on: filter) where m.retain { out[m.topic] = m.payloadString }
        await probe.disconnect()
        return out
    }
}

/// The JSON object of a text payload.
func jsonObject(_ text: String) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
}
