import Foundation
import HomeModel
import MQTT
import Testing

@testable import hap2mqtt

@Suite("Configuration values, the example file and environment overrides")
struct ConfigurationTests {
    /// The repository's `Config/hap2mqtt.example.yaml`, found from this file's path.
    static let examplePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Config/hap2mqtt.example.yaml").path

    private func load(_ yaml: String, environment: [String: String] = [:]) throws -> LoadedConfiguration {
        let files = try TemporaryFiles()
        defer { files.remove() }
        return try Configuration.load(path: files.write(yaml, to: "c.yaml"), environment: environment)
    }

    @Test("the defaults are the ones docs/DESIGN.md gives")
    func defaults() {
        let c = Configuration()
        #expect(c.mqtt.url.description == "mqtt://127.0.0.1:1883")
        #expect(c.mqtt.baseTopic == "hap2mqtt" && c.mqtt.clientID == "hap2mqtt" && c.mqtt.protocolVersion == .v5)
        #expect(c.mqtt.username == nil && c.mqtt.password == nil && c.mqtt.caFile == nil)
        #expect(c.mqtt.keepalive == 30 && c.mqtt.qos == .atLeastOnce)
        #expect(c.mqtt.sessionExpiry == .seconds(60) && c.mqttClientConfiguration().sessionExpiry == .seconds(60))
        #expect(c.mqtt.healthInterval == .seconds(600))
        #expect(c.homekit.stateDirectory == "./data" && c.homekit.pollInterval == .seconds(60))
        #expect(c.homekit.writeTimeout == .seconds(10) && c.homekit.keepaliveInterval == .seconds(30))
        #expect(c.homekit.catchupInterval == .seconds(300))
        #expect(c.homekit.accessories.isEmpty)
        #expect(c.home.home == Home(name: "Home"))
        #expect(c.homeassistant.discovery && c.homeassistant.prefix == "homeassistant")
        #expect(c.homeassistant.statusTopic == "homeassistant/status")
        #expect(c.homeassistant.birthDelay == .seconds(1)...(.seconds(5)))
        #expect(c.logLevel == .info && c.mqttLogLevel == .warning)
    }

    @Test("the example file loads to the defaults: a copy adds no accessory, room or home of its own")
    func exampleFile() throws {
        let loaded = try Configuration.load(path: Self.examplePath, environment: [:])
        #expect(loaded.configuration == Configuration())
        #expect(loaded.warnings.isEmpty)
    }

    @Test("the example's commented accessory entry, uncommented, is a valid entry")
    func exampleAccessoryEntry() throws {
        let text = try String(contentsOfFile: Self.examplePath, encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex { $0.hasPrefix("  #   \"AA:BB:CC:DD:EE:FF/2\":") })
        var index = start
        while lines[index].hasPrefix("  #   ") {
            lines[index] = "    " + lines[index].dropFirst(6)
            index += 1
        }
        #expect(lines[index] == "  accessories: {}")
        lines.remove(at: index)
        lines.insert("  accessories:", at: start)
        let files = try TemporaryFiles()
        defer { files.remove() }
        let loaded = try Configuration.load(
            path: files.write(lines.joined(separator: "\n"), to: "c.yaml"), environment: [:])
        let id = try #require(AccessoryID("AA:BB:CC:DD:EE:FF/2"))
        #expect(
            loaded.configuration.homekit.accessories == [
                id: AccessorySettings(name: "Kitchen Lamp", room: "Kitchen", home: "Home")
            ])
    }

    @Test("the example file documents every setting and the keys of an accessory entry")
    func exampleCoversEverySetting() throws {
        let text = try String(contentsOfFile: Self.examplePath, encoding: .utf8)
        let root = try YAMLReader.parse(text, source: Self.examplePath)
        var documented: Set<String> = []
        func collect(_ node: YAMLNode, _ path: String) {
            guard case .mapping(let entries) = node.content else { return }
            for entry in entries {
                let key = path.isEmpty ? entry.key : "\(path)_\(entry.key)"
                documented.insert("HAP2MQTT_" + key.uppercased())
                if path.isEmpty { collect(entry.value, key) }
            }
        }
        collect(root, "")
        let settings = Configuration.environmentVariables
        #expect(settings.count == 42)
        #expect(Set(settings).subtracting(documented).isEmpty)
        for key in ["name", "room", "home", "exclude"] {
            #expect(text.contains("  #     \(key): "), "the example accessory entry shows \(key)")
        }
        // Every key of a section has a comment right above it; two pairs share one.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (index, line) in lines.enumerated().dropFirst() where line.hasPrefix("  ") && !line.hasPrefix("   ") {
            let key = line.drop { $0 == " " }.prefix { $0 != ":" }
            guard !key.hasPrefix("#"), !["key_file", "birth_delay_max", "auth_token_file"].contains(key) else {
                continue
            }
            #expect(lines[index - 1].trimmingSpaces.hasPrefix("#"), "no comment above \(key)")
        }
    }

    @Test("scalars follow YAML: the protocol as number or text, booleans, times with fractions")
    func scalarRules() throws {
        for (text, version) in [
            ("5", MQTTSettings.ProtocolVersion.v5), ("\"5\"", .v5), ("3.1.1", .v3_1_1),
            ("'3.1.1'", .v3_1_1), ("311", .v3_1_1), ("4", .v3_1_1), ("mqttv5", .v5),
        ] {
            #expect(try load("mqtt:\n  protocol: \(text)\n").configuration.mqtt.protocolVersion == version)
        }
        let c = try load(
            """
            mqtt:
              url: mqtts://[::1]
              username: 1234
              qos: "2"
            homekit:
              write_timeout: 2.5
              poll_interval: 1e2
            homeassistant:
              discovery: off
              discovery_format: entity
              birth_delay_min: 0
              exclude_characteristics: [status_low_battery, kitchen_lamp/lightbulb/brightness]
            home:
              name: ~
            log_level: WARN
            mqtt_log_level: error
            """
        ).configuration
        #expect(c.mqtt.url == MQTTBrokerURL(usesTLS: true, host: "::1", port: 8883))
        #expect(c.mqtt.url.description == "mqtts://[::1]:8883")
        #expect(c.mqtt.username == "1234" && c.mqtt.qos == .exactlyOnce)
        #expect(c.homekit.writeTimeout == .milliseconds(2500) && c.homekit.pollInterval == .seconds(100))
        #expect(!c.homeassistant.discovery && c.homeassistant.birthDelayMin == .zero)
        #expect(c.homeassistant.discoveryFormat == .entity)
        #expect(c.homeassistant.excludeCharacteristics == ["status_low_battery", "kitchen_lamp/lightbulb/brightness"])
        #expect(c.home.name == "Home")
        #expect(c.logLevel == .warning && c.mqttLogLevel == .error)
    }

    @Test("environment variables override the file with the same rules, and name themselves in errors")
    func environment() throws {
        let c = try load(
            "mqtt:\n  url: mqtt://file-broker\nhomekit:\n  write_timeout: 20\n",
            environment: [
                "HAP2MQTT_MQTT_URL": "mqtt://env-broker:1884",
                "HAP2MQTT_HOMEKIT_WRITE_TIMEOUT": "5",
                "HAP2MQTT_LOG_LEVEL": "debug",
                "HAP2MQTT_MQTT_PROTOCOL": "3.1.1",
                "HAP2MQTT_HOMEASSISTANT_DISCOVERY": "false",
                "HAP2MQTT_HOME_ROOMS": "Kitchen, Living Room",
                "HAP2MQTT_HOMEASSISTANT_EXCLUDE_ACCESSORIES": "[\"a, b\", c]",
                "HAP2MQTT_HOMEKIT_ACCESSORIES": "{\"AA:BB:CC:DD:EE:FF/3\": {room: Hall}}",
                "PATH": "/usr/bin",
            ])
        #expect(c.warnings.isEmpty)
        #expect(c.configuration.mqtt.url.description == "mqtt://env-broker:1884")
        #expect(c.configuration.homekit.writeTimeout == .seconds(5))
        #expect(c.configuration.logLevel == .debug && c.configuration.mqtt.protocolVersion == .v3_1_1)
        #expect(!c.configuration.homeassistant.discovery)
        #expect(c.configuration.home.rooms == ["Kitchen", "Living Room"])
        #expect(c.configuration.homeassistant.excludeAccessories == ["a, b", "c"])
        let id = try #require(AccessoryID("AA:BB:CC:DD:EE:FF/3"))
        #expect(c.configuration.homekit.accessories == [id: AccessorySettings(room: "Hall")])

        #expect(
            try configurationError("", environment: ["HAP2MQTT_HOMEKIT_WRITE_TIMEOUT": "soon"])
                == #"environment variable HAP2MQTT_HOMEKIT_WRITE_TIMEOUT: homekit.write_timeout: expected a number of seconds, got "soon""#
        )
        #expect(
            try configurationError("", environment: ["HAP2MQTT_HOME_ROOMS": "[Kitchen"])?
                .hasPrefix("HAP2MQTT_HOME_ROOMS:2:1: YAML syntax error: did not find expected ',' or ']'") == true)
        #expect(
            try configurationError("", environment: ["HAP2MQTT_HOMEKIT_ACCESSORIES": "{x/1: {rom: a}}"])
                == #"environment variable HAP2MQTT_HOMEKIT_ACCESSORIES: homekit.accessories["x/1"].rom: unknown key; did you mean room?"#
        )
    }

    @Test("unknown HAP2MQTT_ variables are warnings, with the nearest real name")
    func unknownVariables() throws {
        let loaded = try load("", environment: ["HAP2MQTT_MQTT_PROTCOL": "5", "HAP2MQTT_MQTT": "x", "OTHER": "1"])
        #expect(
            loaded.warnings == [
                "environment variable HAP2MQTT_MQTT is not a hap2mqtt setting and is ignored",
                "environment variable HAP2MQTT_MQTT_PROTCOL is not a hap2mqtt setting and is ignored; "
                    + "did you mean HAP2MQTT_MQTT_PROTOCOL?",
            ])
        #expect(loaded.configuration == Configuration())
    }
}
