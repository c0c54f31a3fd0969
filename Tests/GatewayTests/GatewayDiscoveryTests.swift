import Foundation
import Gateway
import HAP2MQTTTesting
import HomeModel
import HomeStore
import MQTT
import Testing

/// What the gateway publishes for Home Assistant.
@Suite("Gateway: Home Assistant discovery")
struct GatewayDiscoveryTests {
    static let lampNode = "hap2mqtt_00_00_00_00_00_01_2"

    @Test("every accessory's configs are retained under the prefix, with the gateway's own device")
    func retainedConfigs() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let configs = h.mqtt.retained(under: "homeassistant/#")
            let light = try #require(configs["homeassistant/light/\(Self.lampNode)/s8/config"].flatMap(jsonObject))
            #expect(light["command_topic"] as? String == "hap2mqtt/kitchen_lamp/lightbulb/on/set")
            #expect(light["hs_command_topic"] as? String == "hap2mqtt/kitchen_lamp/lightbulb/hs/set")
            #expect(configs.keys.contains { $0.hasPrefix("homeassistant/lock/hap2mqtt_00_00_00_00_00_01_3/") })
            #expect(configs.keys.contains { $0.hasPrefix("homeassistant/climate/hap2mqtt_00_00_00_00_00_01_4/") })
            #expect(configs.keys.contains { $0.hasPrefix("homeassistant/event/hap2mqtt_00_00_00_00_00_01_5/") })
            let bridge = try #require(
                configs["homeassistant/binary_sensor/hap2mqtt_bridge_hap2mqtt/connection_state/config"].flatMap(
                    jsonObject))
            #expect(bridge["state_topic"] as? String == "hap2mqtt/bridge/state")
            #expect((light["device"] as? [String: Any])?["via_device"] as? String == "hap2mqtt_bridge_hap2mqtt")
        }
    }

    @Test("the gateway's own device config goes out before any accessory's, so Home Assistant can link them at once")
    func bridgeConfigFirst() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let configs = h.mqtt.published.filter { $0.topic.hasPrefix("homeassistant/") && !$0.payload.isEmpty }
            #expect(configs.count > 4, "\(configs.map(\.topic))")
            #expect(
                configs.first?.topic == "homeassistant/binary_sensor/hap2mqtt_bridge_hap2mqtt/connection_state/config",
                "\(configs.prefix(3).map(\.topic))")
        }
    }

    @Test("a camera's snapshot is retained on its snapshot topic: at start, and again on …/snapshot/get")
    func cameraSnapshots() async throws {
        let camera = InMemoryAccessoryProvider.accessory(aid: 6, name: "Porch Camera", services: [HAPType("110")!])
        try await withGatewayHarness(accessories: GatewayFixture.accessories() + [camera]) { h in
            let id = GatewayFixture.id(6)
            let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3, 0xFF, 0xD9]
            h.provider.setSnapshot(jpeg, for: id)
            try await h.waitUntilOnline()
            let topic = "hap2mqtt/porch_camera/camera_rtp_stream_management/snapshot"
            let first = try await h.waitFor(topic: topic, after: 0)
            #expect(first.payload == jpeg, "the camera's JPEG as it came")
            #expect(first.retain)
            #expect(h.provider.snapshotRequests.first.map { [$0.width, $0.height] } == [640, 480])
            let newer: [UInt8] = [0xFF, 0xD8, 9, 9, 0xFF, 0xD9]
            h.provider.setSnapshot(newer, for: id)
            let mark = h.mqtt.published.count
            try await h.send(topic + "/get", "")
            let second = try await h.waitFor(topic: topic, after: mark)
            #expect(second.payload == newer && h.mqtt.retained(topic)?.payload == newer)
            #expect(h.provider.snapshotRequests.map(\.accessory) == [id, id], "only the camera is asked")
        }
    }

    @Test("the hs topic carries hue,saturation and follows either value")
    func hsState() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            #expect(h.mqtt.retained("hap2mqtt/kitchen_lamp/lightbulb/hs")?.payloadString == "0,0")
            h.provider.changeValue(h.address(aid: 2, .Characteristic.hue), to: .float(200))
            try await h.mqtt.waitFor(topic: "hap2mqtt/kitchen_lamp/lightbulb/hs") { $0.payloadString == "200,0" }
            h.provider.changeValue(h.address(aid: 2, .Characteristic.saturation), to: .float(55))
            try await h.mqtt.waitFor(topic: "hap2mqtt/kitchen_lamp/lightbulb/hs") { $0.payloadString == "200,55" }
        }
    }

    @Test("hue and saturation changed together give one hs message with both, never a colour in between")
    func hsTogether() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let mark = h.mqtt.published.count
            h.provider.send(
                .values([
                    ValueUpdate(address: h.address(aid: 2, .Characteristic.hue), value: .float(240), source: .event),
                    ValueUpdate(
                        address: h.address(aid: 2, .Characteristic.saturation), value: .float(100), source: .event),
                ]))
            try await h.waitFor(topic: "hap2mqtt/kitchen_lamp", after: mark)
            #expect(
                h.mqtt.published.dropFirst(mark).filter { $0.topic.hasSuffix("/hs") }.compactMap(\.payloadString) == [
                    "240,100"
                ])
        }
    }

    @Test("hs/set writes hue and saturation in one request, rounded to their steps; bad input writes nothing")
    func hsSet() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let hue = h.address(aid: 2, .Characteristic.hue)
            let saturation = h.address(aid: 2, .Characteristic.saturation)
            let mark = h.mqtt.published.count
            let result = try await h.set("kitchen_lamp/lightbulb/hs", "30.4,71.6")
            #expect(result.payloadString == #"{"status":"ok","value":"30,72"}"#)
            let writes = h.provider.writes
            #expect(writes.count == 1)
            #expect(
                writes.first.map { Dictionary(uniqueKeysWithValues: $0.map { ($0.address, $0.value) }) } == [
                    hue: .float(30), saturation: .float(72),
                ])
            #expect(
                h.mqtt.published.dropFirst(mark).filter { $0.topic.hasSuffix("/hs") }.compactMap(\.payloadString) == [
                    "30,72"
                ])
            for (bad, error) in [
                ("red", "hs: send hue and saturation as 'h,s', e.g. 240,100"),
                ("30", "hs: send hue and saturation as 'h,s', e.g. 240,100"),
                ("400,50", "hue: 400 is above the maximum 360"),
                ("30,nan", "saturation: 'nan' is not a valid float value"),
                ("1e400,1", "hue: 1e400 is too large for a number: it would not be finite"),
                ("30,", "hs: send hue and saturation as 'h,s', e.g. 240,100"),
                ("30,101", "saturation: 101 is above the maximum 100"),
            ] {
                let refused = try await h.set("kitchen_lamp/lightbulb/hs", bad)
                #expect(jsonObject(refused)?["error"] as? String == error, "\(bad)")
            }
            #expect(h.provider.writes.count == 1)
            // Logged as every refused command is: once a minute for the topic, the first one named.
            #expect(
                h.log.records(.info, containing: "refused hap2mqtt/kitchen_lamp/lightbulb/hs/set: hs: send hue")
                    .count == 1, "\(h.log.lines)")
        }
    }

    @Test("Home Assistant's birth message brings every config and then every state again, after the delay")
    func birth() async throws {
        try await withGatewayHarness(
            homeAssistant: HomeAssistantConfiguration(
                birthDelay: .milliseconds(200)...(.milliseconds(300)), format: .entity)
        ) { h in
            try await h.waitUntilOnline()
            let retained = h.mqtt.retained(under: "#")
            h.mqtt.clear()
            try await h.send("homeassistant/status", " online\n")
            try await h.mqtt.waitFor(topic: "hap2mqtt/bridge/state")
            #expect(h.mqtt.batches.count == 1, "all in one call")
            let topics = h.mqtt.published.map(\.topic)
            let firstState = try #require(
                topics.firstIndex { $0.hasPrefix("hap2mqtt/") && $0 != "hap2mqtt/bridge/state" })
            #expect(
                topics[1..<firstState].allSatisfy { $0.hasPrefix("homeassistant/") } && firstState > 10,
                "configs before states")
            var republished: [String: String] = [:]
            for message in h.mqtt.published { republished[message.topic] = message.payloadString }
            #expect(
                republished == retained, "what is sent again is what the broker holds, configs built again included")
            // Answered, a birth is answered again, with the values of then.
            h.provider.changeValue(h.address(aid: 2, .Characteristic.brightness), to: .int(55))
            try await h.mqtt.waitFor(topic: "hap2mqtt/kitchen_lamp/lightbulb/brightness") { $0.payloadString == "55" }
            try await h.send("homeassistant/status", "online")
            try await eventually("the second answer") {
                h.mqtt.batches.last?.first?.topic == "hap2mqtt/bridge/state"
                    && h.mqtt.batches.last?.contains { $0.topic.hasSuffix("/brightness") && $0.payloadString == "55" }
                        == true
            }
        }
    }

    @Test("a removed accessory's configs are cleared; a renamed one keeps its configs, updated in place")
    func removeAndRename() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            #expect(!h.mqtt.retained(under: "homeassistant/+/hap2mqtt_00_00_00_00_00_01_3/#").isEmpty)
            let removing = h.mqtt.published.count
            h.provider.remove(aid: 3)
            try await h.mqtt.waitFor(topic: "hap2mqtt/bridge/event") {
                jsonObject($0)?["type"] as? String == "accessory_removed"
            }
            #expect(h.mqtt.retained(under: "homeassistant/+/hap2mqtt_00_00_00_00_00_01_3/#").isEmpty)
            #expect(
                configsClearedFirst(h.mqtt.published.dropFirst(removing), slug: "front_door"),
                "configs before state topics: \(h.mqtt.published.dropFirst(removing).map(\.topic))")

            let topic = "homeassistant/light/\(Self.lampNode)/s8/config"
            let mark = h.mqtt.published.count
            try await h.send("hap2mqtt/bridge/request/rename", #"{"accessory":"kitchen_lamp","to":"island_lamp"}"#)
            let updated = try await h.waitFor(topic: topic, after: mark)
            #expect(jsonObject(updated)?["command_topic"] as? String == "hap2mqtt/island_lamp/lightbulb/on/set")
            #expect(
                h.mqtt.messages(on: topic).allSatisfy { !$0.payload.isEmpty },
                "never cleared, so Home Assistant keeps the entity")
            #expect(h.mqtt.retained("hap2mqtt/kitchen_lamp/lightbulb/hs") == nil)
        }
    }

    @Test("a new Name in the Home app renames the Home Assistant device; its topics stay")
    func nameChange() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            h.provider.changeValue(h.address(aid: 2, .Characteristic.name), to: .string("Island Lamp"))
            let topic = "homeassistant/light/\(Self.lampNode)/s8/config"
            let config = try await h.mqtt.waitFor(topic: topic) {
                ((jsonObject($0)?["device"] as? [String: Any])?["name"] as? String) == "Island Lamp"
            }
            #expect(jsonObject(config)?["command_topic"] as? String == "hap2mqtt/kitchen_lamp/lightbulb/on/set")
        }
    }

    @Test("exclusions leave out accessories and characteristics, and a custom prefix is used")
    func exclusions() async throws {
        let settings = HomeAssistantConfiguration(
            prefix: "ha", excludedAccessories: ["front_door", "00:00:00:00:00:01/5"],
            excludedCharacteristics: ["brightness", "hall_thermostat/thermostat/current_relative_humidity"],
            format: .entity)
        try await withGatewayHarness(homeAssistant: settings) { h in
            try await h.waitUntilOnline()
            let configs = h.mqtt.retained(under: "ha/#")
            #expect(h.mqtt.retained(under: "homeassistant/#").isEmpty)
            #expect(
                !configs.keys.contains { $0.contains("_01_3/") || $0.contains("_01_5/") }, "\(configs.keys.sorted())")
            let light = try #require(configs["ha/light/\(Self.lampNode)/s8/config"].flatMap(jsonObject))
            #expect(light["brightness_command_topic"] == nil && light["hs_command_topic"] != nil)
            let climate = try #require(
                configs.first { $0.key.hasPrefix("ha/climate/") }.flatMap { jsonObject($0.value) })
            #expect(climate["current_humidity_topic"] == nil && climate["current_temperature_topic"] != nil)
            #expect(
                h.mqtt.messages(on: "ha/+/hap2mqtt_00_00_00_00_00_01_3/#").allSatisfy { $0.payload.isEmpty },
                "the excluded accessory's configs are only cleared")
        }
    }

    @Test("with discovery off no config is published, and configs left from before are cleared")
    func discoveryOff() async throws {
        try await withGatewayHarness(homeAssistant: HomeAssistantConfiguration(discovery: false, format: .entity)) {
            h in
            try await h.waitUntilOnline()
            let configs = h.mqtt.messages(on: "homeassistant/#")
            #expect(
                !configs.isEmpty && configs.allSatisfy { $0.payload.isEmpty && $0.retain },
                "only empty retained messages, which clear")
            #expect(configs.contains { $0.topic == "homeassistant/light/\(Self.lampNode)/s8/config" })
            #expect(h.mqtt.subscriptions["homeassistant/status"] == nil)
        }
    }
}
