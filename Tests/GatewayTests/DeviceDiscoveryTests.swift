import Gateway
import HAP2MQTTTesting
import HomeModel
import JSON
import Testing

/// Device-based discovery configs as data: one per accessory, made of the per-entity configs the mapping
/// builds, so that Home Assistant, merging the shared options back into each component (its
/// `_merge_common_device_options`), sees the very same entity configs under the same discovery ids.
@Suite("Home Assistant: device-based discovery configs")
struct DeviceDiscoveryTests {
    let topics = TopicScheme(base: "hap2mqtt")
    let discovery = HomeAssistantDiscovery(
        configuration: HomeAssistantConfiguration(), topics: TopicScheme(base: "hap2mqtt"), version: "test")

    func sorted(_ value: JSONValue) -> String { String(decoding: value.encoded(sortingKeys: true), as: UTF8.self) }

    @Test("the gateway's own device: one component, device and origin at the top, no availability")
    func bridge() throws {
        let config = discovery.bridgeConfig(format: .device)
        #expect(config.topic == "homeassistant/device/hap2mqtt_bridge_hap2mqtt/config")
        let expected = try JSONValue(
            parsing: #"""
                {"cmps":{"connection_state":{"device_class":"connectivity","entity_category":"diagnostic",
                "name":"Connection state","p":"binary_sensor","payload_off":"offline","payload_on":"online",
                "state_topic":"hap2mqtt/bridge/state","unique_id":"hap2mqtt_bridge_hap2mqtt_connection_state",
                "value_template":"{{ value_json.state }}"}},
                "dev":{"identifiers":["hap2mqtt_bridge_hap2mqtt"],"manufacturer":"hap2mqtt",
                "model":"HomeKit to MQTT gateway","name":"hap2mqtt","sw_version":"test"},
                "o":{"name":"hap2mqtt","sw_version":"test"}}
                """#)
        #expect(sorted(config.payload) == sorted(expected))
        #expect(discovery.bridgeConfig(format: .entity) == discovery.bridgeConfig())
    }

    @Test(
        "an accessory's device config holds every entity config under its object id; merged back, each is the same",
        arguments: ["Lightbulb", "LockMechanism", "StatelessProgrammableSwitch", "Thermostat", "Television"])
    func accessory(service: String) throws {
        let type = try #require(HAPCatalog.service(named: service)).type
        let accessory = InMemoryAccessoryProvider.accessory(aid: 2, name: "Test \(service)", services: [type])
        let layout = AccessoryLayout(accessory: accessory, slug: "test_accessory", topics: topics)
        let entities = discovery.plan(for: accessory, layout: layout, format: .entity).publish
        let plan = discovery.plan(for: accessory, layout: layout, format: .device)
        #expect(plan.clear.isEmpty)
        let config = try #require(plan.publish.first)
        #expect(plan.publish.count == 1)
        #expect(config.topic == "homeassistant/device/hap2mqtt_00_00_00_00_00_01_2/config")
        #expect(config.text.utf8.count < entities.map(\.text.utf8.count).reduce(0, +), "smaller than the configs")
        let top = try #require(config.payload.objectValue)
        #expect(Set(top.keys) == ["dev", "o", "avty", "avty_mode", "cmps"])
        #expect(
            top["avty"]
                == [
                    ["topic": "hap2mqtt/bridge/state", "value_template": "{{ value_json.state }}"],
                    ["topic": "hap2mqtt/test_accessory/availability"],
                ])
        #expect(top["avty_mode"] == "all")
        let components = try #require(top["cmps"]?.objectValue)
        #expect(components.keys == entities.map(\.objectID), "each entity under its object id, in order")
        for entity in entities {
            // Home Assistant's discovery id is `<node_id> <object_id>` in both formats.
            #expect(entity.nodeID == "hap2mqtt_00_00_00_00_00_01_2")
            var merged = try #require(components[entity.objectID]?.objectValue)
            #expect(merged["p"] == .string(entity.component))
            merged["p"] = nil
            #expect(merged["device"] == nil && merged["origin"] == nil)
            merged["device"] = top["dev"]
            merged["origin"] = top["o"]
            if entity.component != "device_automation", merged["availability"] == nil {
                merged["availability"] = top["avty"]
                merged["availability_mode"] = top["avty_mode"]
            }
            if entity.component == "device_automation" {
                #expect(merged["unique_id"] == nil, "a device trigger is no entity")
            } else {
                #expect(merged["unique_id"] == .string(entity.uniqueID))
            }
            #expect(sorted(.object(merged)) == sorted(entity.payload), "\(entity.topic)")
        }
    }

    @Test("a lock keeps its own, longer availability in its component; the others share the device's")
    func ownAvailability() throws {
        let type = try #require(HAPCatalog.service(named: "LockMechanism")).type
        let accessory = InMemoryAccessoryProvider.accessory(aid: 9, name: "Door", services: [type])
        let layout = AccessoryLayout(accessory: accessory, slug: "door", topics: topics)
        let config = try #require(discovery.plan(for: accessory, layout: layout, format: .device).publish.first)
        let components = try #require(config.payload["cmps"]?.objectValue)
        let lock = try #require(components.members.first { $0.value["p"] == "lock" }?.value)
        #expect((lock["availability"]?.arrayValue?.count ?? 0) > 2)
        let button = try #require(components.members.first { $0.value["p"] == "button" }?.value)
        #expect(button["availability"] == nil && button["availability_mode"] == nil)
    }

    @Test("an excluded accessory, or discovery off, clears the device topic; an excluded characteristic leaves cmps")
    func clears() throws {
        let type = try #require(HAPCatalog.service(named: "Lightbulb")).type
        let accessory = InMemoryAccessoryProvider.accessory(aid: 2, name: "Lamp", services: [type])
        let layout = AccessoryLayout(accessory: accessory, slug: "lamp", topics: topics)
        let topic = "homeassistant/device/hap2mqtt_00_00_00_00_00_01_2/config"
        for configuration in [
            HomeAssistantConfiguration(excludedAccessories: ["lamp"]), HomeAssistantConfiguration(discovery: false),
        ] {
            let off = HomeAssistantDiscovery(configuration: configuration, topics: topics, version: "test")
            let plan = off.plan(for: accessory, layout: layout, format: .device)
            #expect(plan.publish.isEmpty && plan.clear == [topic])
        }
        let excluding = HomeAssistantDiscovery(
            configuration: HomeAssistantConfiguration(excludedCharacteristics: ["identify"]), topics: topics,
            version: "test")
        let config = try #require(excluding.plan(for: accessory, layout: layout, format: .device).publish.first)
        let components = try #require(config.payload["cmps"]?.objectValue)
        #expect(!components.members.contains { $0.value["p"] == "button" }, "the identify button is gone")
        #expect(components.members.contains { $0.value["p"] == "light" })
    }

    @Test("device ids are Home Assistant's [a-zA-Z0-9_-] whatever the accessory id or base topic")
    func safeIDs() {
        let hostile = TopicScheme(base: "a b/ü")
        let odd = HomeAssistantDiscovery(configuration: HomeAssistantConfiguration(), topics: hostile, version: "t")
        let pattern = #/^homeassistant/device/[a-zA-Z0-9_-]+/config$/#
        #expect(odd.bridgeConfig(format: .device).topic.wholeMatch(of: pattern) != nil)
        for id in ["AA:BB:CC:DD:EE:FF/2", "::/", "ü"] {
            let node = HomeAssistantDiscovery.safe(id)
            #expect(odd.deviceTopic(node: "hap2mqtt_" + node).wholeMatch(of: pattern) != nil, "\(id)")
        }
    }
}
