import Foundation
import Gateway
import HAP2MQTTTesting
import HomeModel
import JSON
import Testing

/// The discovery configs as data: built from the catalog for every service type of the mapping, checked
/// for Home Assistant's required keys and for topics the gateway really publishes or subscribes to.
@Suite("Home Assistant: discovery configs")
struct HomeAssistantDiscoveryTests {
    /// Each service type of the mapping and the platform of its main entity.
    static let mainComponents: [(service: String, component: String)] = [
        ("Lightbulb", "light"), ("Switch", "switch"), ("Outlet", "switch"), ("TemperatureSensor", "sensor"),
        ("HumiditySensor", "sensor"), ("LightSensor", "sensor"), ("CarbonDioxideSensor", "binary_sensor"),
        ("AirQualitySensor", "sensor"), ("BatteryService", "sensor"), ("ContactSensor", "binary_sensor"),
        ("MotionSensor", "binary_sensor"), ("OccupancySensor", "binary_sensor"), ("LeakSensor", "binary_sensor"),
        ("SmokeSensor", "binary_sensor"), ("CarbonMonoxideSensor", "binary_sensor"), ("Thermostat", "climate"),
        ("HeaterCooler", "climate"), ("WindowCovering", "cover"), ("Door", "cover"), ("Window", "cover"),
        ("GarageDoorOpener", "cover"), ("LockMechanism", "lock"), ("Fan", "fan"), ("Fanv2", "fan"), ("Valve", "switch"),
        ("Faucet", "switch"), ("SecuritySystem", "alarm_control_panel"), ("StatelessProgrammableSwitch", "event"),
        ("Doorbell", "event"), ("FilterMaintenance", "binary_sensor"), ("AirPurifier", "fan"),
        ("HumidifierDehumidifier", "humidifier"), ("Television", "switch"), ("CameraRTPStreamManagement", "image"),
    ]

    /// Keys each platform cannot do without.
    static let requiredKeys: [String: [String]] = [
        "light": ["command_topic", "state_topic"], "switch": ["command_topic", "state_topic"],
        "sensor": ["state_topic"], "binary_sensor": ["state_topic"],
        "climate": ["mode_command_topic", "mode_state_topic"],
        "cover": ["command_topic"], "lock": ["command_topic", "state_topic"], "fan": ["command_topic", "state_topic"],
        "alarm_control_panel": ["command_topic", "state_topic"], "event": ["state_topic", "event_types"],
        "button": ["command_topic", "payload_press"], "humidifier": ["command_topic", "target_humidity_command_topic"],
        "select": ["command_topic", "options"], "number": ["command_topic", "min", "max", "step"],
        "text": ["command_topic"],
        "image": ["image_topic"], "camera": ["topic"],
    ]

    let topics = TopicScheme(base: "hap2mqtt")
    let discovery = HomeAssistantDiscovery(
        configuration: HomeAssistantConfiguration(), topics: TopicScheme(base: "hap2mqtt"), version: "test")

    func build(_ serviceName: String, aid: Int = 2) throws -> (Accessory, AccessoryLayout, [DiscoveryConfig]) {
        let service = try #require(HAPCatalog.service(named: serviceName))
        let accessory = InMemoryAccessoryProvider.accessory(
            aid: aid, name: "Test \(serviceName)", services: [service.type])
        let layout = AccessoryLayout(accessory: accessory, slug: "test_accessory", topics: topics)
        return (accessory, layout, discovery.configs(for: accessory, layout: layout, applyingExclusions: true))
    }

    @Test(
        "every mapped service type gives valid JSON configs with the required keys, device, origin and availability",
        arguments: mainComponents)
    func configsAreComplete(service: String, component: String) throws {
        let (accessory, layout, configs) = try build(service)
        #expect(
            configs.contains { $0.component == component && ($0.payload["name"] == .null) },
            "\(service): the main entity is a \(component) named after the device")
        #expect(configs.contains { $0.component == "button" && $0.topic.contains("/button/") }, "an identify button")
        #expect(Set(configs.map(\.uniqueID)).count == configs.count, "unique ids are unique")
        for config in configs {
            let json = try #require(
                (try JSONSerialization.jsonObject(with: Data(config.text.utf8))) as? [String: Any], "\(config.topic)")
            let topicPattern = #/^homeassistant/([a-z_]+)/([a-zA-Z0-9_-]+)/([a-zA-Z0-9_-]+)/config$/#
            let match = try #require(config.topic.wholeMatch(of: topicPattern), "\(config.topic)")
            #expect(String(match.1) == config.component)
            #expect(String(match.2) == "hap2mqtt_00_00_00_00_00_01_2", "node_id from the accessory id, not its name")
            let device = try #require(json["device"] as? [String: Any])
            #expect(device["identifiers"] as? [String] == ["hap2mqtt_00_00_00_00_00_01_2"])
            #expect(device["name"] as? String == accessory.name)
            #expect(device["manufacturer"] as? String == "hap2mqtt tests" && device["sw_version"] as? String == "1.0.0")
            #expect(device["via_device"] as? String == discovery.bridgeIdentifier)
            if config.component == "device_automation" {
                try checkTrigger(json, config: config, layout: layout)
                continue
            }
            #expect(
                json["unique_id"] as? String == config.uniqueID
                    && config.uniqueID.hasPrefix("hap2mqtt_00_00_00_00_00_01_2_"))
            #expect(json.keys.contains("name"))
            for key in Self.requiredKeys[config.component] ?? [] {
                #expect(json[key] != nil, "\(config.topic) lacks \(key)")
            }
            #expect((json["origin"] as? [String: Any])?["name"] as? String == "hap2mqtt")
            let availability = try #require(json["availability"] as? [[String: Any]])
            // A lock adds its JSON topic, to be unavailable while its state is unknown.
            let own = config.component == "lock" ? [topics.accessory(layout.slug)] : []
            #expect(
                availability.compactMap { $0["topic"] as? String } == [
                    topics.bridgeState, topics.availability(layout.slug),
                ] + own)
            #expect(availability.first?["value_template"] as? String == "{{ value_json.state }}")
            #expect(json["availability_mode"] as? String == "all")
            try checkTopics(json, config: config, layout: layout)
            checkPayloads(json, config: config, accessory: accessory, layout: layout)
        }
    }

    /// A device trigger (Home Assistant's MQTT device automation) has what its schema requires, and its
    /// topic is one the gateway publishes button presses on.
    func checkTrigger(_ json: [String: Any], config: DiscoveryConfig, layout: AccessoryLayout) throws {
        #expect(json["automation_type"] as? String == "trigger")
        for key in ["topic", "type", "subtype", "payload"] {
            #expect(json[key] is String, "\(config.topic) lacks \(key)")
        }
        let stateless = Set(layout.characteristics.filter(\.isStateless).map(\.stateTopic))
        #expect(stateless.contains(json["topic"] as? String ?? ""), "\(config.topic): triggers on an event topic")
        #expect(json["name"] == nil && json["availability"] == nil, "a trigger is no entity")
    }

    /// The payloads a config compares the state with are ones the gateway publishes for that
    /// characteristic: `true`/`false` for `bool`, the valid values' integers for enumerations.
    func checkPayloads(_ json: [String: Any], config: DiscoveryConfig, accessory: Accessory, layout: AccessoryLayout) {
        guard let state = json["state_topic"] as? String,
            let topic = layout.characteristics.first(where: { $0.stateTopic == state }),
            let characteristic = accessory.characteristic(iid: topic.address.iid)?.characteristic
        else { return }
        let possible: Set<String>
        if characteristic.format == .bool {
            possible = ["true", "false"]
        } else if let valid = characteristic.validValues {
            possible = Set(valid.map(String.init))
        } else {
            return
        }
        for key in [
            "payload_on", "payload_off", "state_on", "state_off", "state_locked", "state_unlocked", "state_jammed",
            "payload_reset",
        ] {
            guard let payload = json[key] as? String else { continue }
            #expect(
                possible.contains(payload),
                "\(config.topic): \(key) \(payload) is never published on \(state) (\(possible.sorted()))")
        }
    }

    /// Every topic a config names is one the gateway publishes (state) or takes commands on.
    func checkTopics(_ json: [String: Any], config: DiscoveryConfig, layout: AccessoryLayout) throws {
        let readable = Set(layout.characteristics.filter(\.isReadable).map(\.stateTopic))
        let writable = Set(layout.characteristics.filter(\.isWritable).map(\.stateTopic))
        let hs = Set(layout.hsTopics.map(\.stateTopic))
        let snapshot = layout.snapshotTopic.map { [$0] } ?? []
        let published = readable.union(hs).union([
            topics.accessory(layout.slug), topics.availability(layout.slug), topics.bridgeState,
        ])
        .union(snapshot)
        for (key, value) in json where key.hasSuffix("_topic") {
            let topic = try #require(value as? String, "\(key) in \(config.topic)")
            if key.hasSuffix("command_topic") || key == "set_position_topic" {
                switch topics.command(for: topic) {
                case .set(let state)?:
                    #expect(
                        writable.contains(state) || hs.contains(state),
                        "\(config.topic): \(key) \(topic) takes no command")
                case .accessorySet(let slug)?: #expect(slug == layout.slug)
                case .get(let state)?:
                    #expect(snapshot.contains(state), "\(config.topic): \(key) \(topic) asks for nothing")
                default: Issue.record("\(config.topic): \(key) \(topic) is not a command topic of the gateway")
                }
            } else {
                #expect(published.contains(topic), "\(config.topic): \(key) \(topic) is not published by the gateway")
            }
        }
    }
}
