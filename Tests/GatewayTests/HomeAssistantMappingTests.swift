import Foundation
import Gateway
import HAP2MQTTTesting
import HomeModel
import Testing

/// The discovery configs of the services and characteristics Home Assistant gets controls for,
/// as data: what each config says, built from accessories made like HAP-python's.
@Suite("Home Assistant: the configs of controls, names and device triggers")
struct HomeAssistantMappingTests {
    let topics = TopicScheme(base: "hap2mqtt")
    let discovery = HomeAssistantDiscovery(
        configuration: HomeAssistantConfiguration(), topics: TopicScheme(base: "hap2mqtt"), version: "test")

    /// The configs of `accessory`, by `<component>/<object id>`, as JSON objects.
    func configs(_ accessory: Accessory, slug: String = "device") throws -> [String: [String: Any]] {
        let layout = AccessoryLayout(accessory: accessory, slug: slug, topics: topics)
        var out: [String: [String: Any]] = [:]
        for config in discovery.configs(for: accessory, layout: layout, applyingExclusions: true) {
            let parts = config.topic.split(separator: "/")
            out["\(config.component)/\(parts[parts.count - 2])"] = try #require(
                try JSONSerialization.jsonObject(with: Data(config.text.utf8)) as? [String: Any])
        }
        return out
    }

    /// An accessory from the catalog with `changes` applied to its characteristics (by short type).
    func accessory(
        _ name: String, _ services: [String], optional: Bool = true,
        _ changes: [String: (inout Characteristic) -> Void] = [:]
    ) -> Accessory {
        var accessory = InMemoryAccessoryProvider.accessory(
            aid: 2, name: name, services: services.map { HAPType($0)! }, optional: optional)
        for s in accessory.services.indices {
            for c in accessory.services[s].characteristics.indices {
                changes[accessory.services[s].characteristics[c].type.shortForm]?(
                    &accessory.services[s].characteristics[c])
            }
        }
        return accessory
    }

    /// Adds a service with these characteristics after the others, iids following the last one.
    func adding(
        _ type: String, _ characteristics: [Characteristic], to accessory: Accessory, linkedFrom parent: Int? = nil
    ) -> Accessory {
        var accessory = accessory
        var next = (accessory.services.flatMap { [$0.iid] + $0.characteristics.map(\.iid) }.max() ?? 0) + 1
        let serviceIID = next
        next += 1
        let numbered = characteristics.enumerated().map { index, c in
            var c = c
            c.iid = next + index
            return c
        }
        accessory.services.append(Service(iid: serviceIID, type: HAPType(type)!, characteristics: numbered))
        if let parent, let index = accessory.services.firstIndex(where: { $0.iid == parent }) {
            accessory.services[index].linked.append(serviceIID)
        }
        return accessory
    }

    func make(_ type: String, _ value: CharacteristicValue?) -> Characteristic {
        var c = Characteristic.make(iid: 0, type: HAPType(type)!)!
        c.value = value
        return c
    }

    @Test("a fan offers only its own speeds: with a step of 25, four speeds turned into percentages by templates")
    func fanSpeedsFromTheStep() throws {
        let stepped = try configs(accessory("Fan", ["B7"], ["29": { $0.minStep = 25 }]))
        let fan = try #require(stepped["fan/s8"])
        #expect(fan["speed_range_min"] as? Int == 1 && fan["speed_range_max"] as? Int == 4)
        #expect(fan["percentage_command_topic"] as? String == "hap2mqtt/device/set")
        #expect(
            fan["percentage_command_template"] as? String
                == #"{% if value == 0 %}{"fanv2":{"active":0}}{% else %}{"fanv2":{"rotation_speed":{{ value * 25 + 0 }}}}{% endif %}"#
        )
        #expect(fan["percentage_value_template"] as? String == "{{ ((value | float - 0) / 25) | round | int }}")
        let plain = try #require(try configs(accessory("Fan", ["B7"]))["fan/s8"])
        #expect(
            plain["speed_range_max"] as? Int == 100 && plain["percentage_value_template"] == nil,
            "1 % steps: the values are percents")
        #expect(
            plain["percentage_command_template"] as? String
                == #"{% if value == 0 %}{"fanv2":{"active":0}}{% else %}{"fanv2":{"rotation_speed":{{ value }}}}{% endif %}"#
        )
        let onOff = try #require(try configs(accessory("Fan", ["B7"], ["29": { $0.minStep = 100 }]))["fan/s8"])
        #expect(onOff["percentage_command_topic"] == nil, "one step is no speed control")
        #expect(onOff["preset_modes"] as? [String] == ["manual", "auto"], "TargetFanState is the auto/manual preset")
    }

    @Test(
        "0 % turns a fan off, as Home Assistant's HomeKit Controller does: On false for a Fan, Active 0 for the others")
    func fanZeroPercentIsOff() throws {
        let v1 = try #require(try configs(accessory("Fan", ["40"]))["fan/s8"])
        #expect(v1["percentage_command_topic"] as? String == "hap2mqtt/device/set", "\(v1)")
        #expect(
            (v1["percentage_command_template"] as? String)?.hasPrefix(#"{% if value == 0 %}{"fan":{"on":false}}"#)
                == true)
        let purifier = try #require(try configs(accessory("Purifier", ["BB"]))["fan/s8"])
        #expect(
            (purifier["percentage_command_template"] as? String)?.hasPrefix(
                #"{% if value == 0 %}{"air_purifier":{"active":0}}"#) == true, "\(purifier)")
    }

    @Test(
        "the buttons of a remote are numbered by their ServiceLabelIndex, none takes the device name, each has device triggers"
    )
    func remoteButtons() throws {
        var remote = InMemoryAccessoryProvider.accessory(aid: 2, name: "Remote", services: [HAPType("CC")!])
        for index in [3, 1, 2] {
            remote = adding("89", [make("73", nil), make("CB", .int(Int64(index)))], to: remote)
        }
        let built = try configs(remote)
        let events = built.filter { $0.key.hasPrefix("event/") }.values
        #expect(
            Set(events.compactMap { $0["name"] as? String }) == ["Button 1", "Button 2", "Button 3"],
            "\(events.map { $0["name"] ?? "nil" })")
        let triggers = built.filter { $0.key.hasPrefix("device_automation/") }.values
        #expect(triggers.count == 9, "three presses for each of three buttons")
        #expect(Set(triggers.compactMap { $0["subtype"] as? String }) == ["button_1", "button_2", "button_3"])
        #expect(
            Set(triggers.compactMap { $0["type"] as? String }) == [
                "button_short_press", "button_double_press", "button_long_press",
            ])
        let first = try #require(
            triggers.first { $0["subtype"] as? String == "button_1" && $0["type"] as? String == "button_double_press" })
        #expect(first["payload"] as? String == "1" && first["automation_type"] as? String == "trigger")
        let single = try #require(
            built.first { $0.key.hasPrefix("event/") && $0.value["name"] as? String == "Button 1" }?.value)
        #expect(first["topic"] as? String == single["state_topic"] as? String)
        let doorbell = try configs(accessory("Doorbell", ["121"]))
        #expect(
            doorbell.values.contains {
                $0["subtype"] as? String == "doorbell" && $0["type"] as? String == "button_short_press"
            })
    }

    @Test("names: white space of the accessory's name is tidied, a service's type drops 'service'")
    func names() throws {
        let garage = try configs(accessory("  Garage   Door ", ["41"]))
        let cover = try #require(garage["cover/s8"])
        #expect((cover["device"] as? [String: Any])?["name"] as? String == "Garage Door")
        let obstruction = try #require(garage.values.first { ($0["unique_id"] as? String)?.hasSuffix("_c11") == true })
        #expect(obstruction["name"] as? String == "Obstruction detected")
        let sensor = try configs(accessory("Battery Sensor", ["80", "96"]))
        let battery = try #require(
            sensor.values.first {
                $0["device_class"] as? String == "battery" && $0["unit_of_measurement"] as? String == "%"
            })
        #expect(battery["name"] as? String == "Battery", "the battery level is the Battery service's main entity")
        let names = sensor.values.compactMap { $0["name"] as? String }
        #expect(!names.contains { $0.lowercased().contains("service") }, "\(names)")
    }

    @Test("valid values are spelled in words: HumidifierOrDehumidifier is humidifier_or_dehumidifier")
    func validValueWords() throws {
        let plain = try configs(accessory("Humidifier", ["BD"], optional: false))
        #expect(plain["switch/s8"] != nil, "without a threshold the service is a switch on Active")
        let mode = try #require(plain.values.first { $0["options"] != nil })
        #expect(
            mode["options"] as? [String] == ["humidifier_or_dehumidifier", "humidifier", "dehumidifier"], "\(mode)")
    }

    @Test(
        "writable characteristics outside a mapping are a select, number, switch, text or buttons; read-only ones stay sensors"
    )
    func writableCharacteristics() throws {
        let thermostat = try configs(accessory("Thermostat", ["4A"]))
        let units = try #require(thermostat.values.first { $0["name"] as? String == "Temperature display units" })
        #expect(
            (units["device"] as? [String: Any]) != nil && units["options"] as? [String] == ["celsius", "fahrenheit"])
        #expect(units["command_template"] as? String == "{{ {'celsius':0,'fahrenheit':1}[value] }}")
        #expect(
            units["entity_category"] as? String == "config"
                && units["command_topic"] as? String == "hap2mqtt/device/thermostat/temperature_display_units/set")

        let vendor = HAPType("3F9C2A10-7B4E-4C1D-9A55-0D2E6B8A1C02")!
        let level = Characteristic(
            iid: 0, type: vendor, format: .float, permissions: [.pairedRead, .pairedWrite], minValue: 0, maxValue: 10,
            minStep: 0.5, value: .float(2), descriptionText: "Vendor Level")
        let flag = Characteristic(
            iid: 0, type: HAPType("3F9C2A10-7B4E-4C1D-9A55-0D2E6B8A1C03")!, format: .bool,
            permissions: [.pairedRead, .pairedWrite], value: .bool(false))
        let text = Characteristic(
            iid: 0, type: HAPType("3F9C2A10-7B4E-4C1D-9A55-0D2E6B8A1C04")!, format: .string,
            permissions: [.pairedRead, .pairedWrite], value: .string("hi"), descriptionText: "Greeting")
        let device = adding(
            "3F9C2A10-7B4E-4C1D-9A55-0D2E6B8A1C01", [level, flag, text],
            to: InMemoryAccessoryProvider.accessory(aid: 2, name: "Vendor", services: []))
        let controls = try configs(device)
        let number = try #require(controls.first { $0.key.hasPrefix("number/") }?.value)
        #expect(
            number["min"] as? Int == 0 && number["max"] as? Int == 10 && number["step"] as? Double == 0.5
                && number["name"] as? String == "Vendor level")
        #expect(controls.contains { $0.key.hasPrefix("switch/") && $0.value["payload_on"] as? String == "true" })
        let greeting = try #require(controls.first { $0.key.hasPrefix("text/") }?.value)
        #expect(greeting["name"] as? String == "Greeting" && greeting["max"] as? Int == 64)

        let television = try configs(accessory("TV", ["D8"]))
        let keys = television.filter {
            $0.key.hasPrefix("button/") && ($0.value["command_topic"] as? String)?.hasSuffix("remote_key/set") == true
        }
        #expect(keys.count == 13, "one button per remote key: \(keys.keys.sorted())")
        #expect(keys.values.contains { $0["name"] as? String == "Arrow up" && $0["payload_press"] as? String == "4" })
    }

    @Test("a lock shows locking and unlocking while its current state differs from its target, and jammed")
    func lockStates() throws {
        let lock = try #require(try configs(accessory("Lock", ["45"]))["lock/s8"])
        #expect(lock["state_topic"] as? String == "hap2mqtt/device")
        let template = try #require(lock["value_template"] as? String)
        for word in ["'LOCKING' if c == 0 and t == 1", "'UNLOCKING' if c == 1 and t == 0", "2: 'JAMMED'", "'None'"] {
            #expect(template.contains(word), "\(template)")
        }
    }

    @Test("a lock whose state is unknown (3) is unavailable, since Home Assistant keeps showing jammed after 'None'")
    func lockUnknownState() throws {
        let built = try configs(accessory("Lock", ["45"]))
        let lock = try #require(built["lock/s8"])
        let availability = try #require(lock["availability"] as? [[String: Any]])
        #expect(availability.count == 3 && lock["availability_mode"] as? String == "all", "\(availability)")
        #expect(availability.first?["topic"] as? String == "hap2mqtt/bridge/state")
        let own = try #require(availability.dropFirst(2).first, "the lock's own entry")
        #expect(own["topic"] as? String == "hap2mqtt/device")
        #expect(
            own["value_template"] as? String
                == "{{ 'offline' if value_json is defined and value_json['lock_mechanism']['lock_current_state'] == 3 else 'online' }}"
        )
        for (key, config) in built where key != "lock/s8" {
            #expect((config["availability"] as? [Any])?.count == 2, "\(key) keeps the two shared entries")
        }
    }

    @Test(
        "a window covering with HoldPosition stops, with tilt over the characteristic's range; the other tilt is a number"
    )
    func coverStopAndTilt() throws {
        let built = try configs(accessory("Blind", ["8C"]))
        let cover = try #require(built["cover/s8"])
        #expect(cover["command_topic"] as? String == "hap2mqtt/device/set")
        #expect(cover["payload_stop"] as? String == #"{"window_covering":{"hold_position":true}}"#)
        #expect(cover["payload_open"] as? String == #"{"window_covering":{"target_position":100}}"#)
        #expect(cover["set_position_topic"] as? String == "hap2mqtt/device/window_covering/target_position/set")
        #expect(
            cover["tilt_command_topic"] as? String == "hap2mqtt/device/window_covering/target_horizontal_tilt_angle/set"
        )
        #expect(
            cover["tilt_status_topic"] as? String == "hap2mqtt/device/window_covering/current_horizontal_tilt_angle")
        #expect(
            cover["tilt_min"] as? Int == -90 && cover["tilt_max"] as? Int == 90
                && cover["tilt_opened_value"] as? Int == 0)
        #expect(
            built.values.contains { $0["name"] as? String == "Target vertical tilt angle" && $0["min"] as? Int == -90 })
    }

    @Test(
        "absurd ranges and steps from an accessory (1e300, a step of 1e-18) give configs with bounded whole numbers, never a trap"
    )
    func absurdMetadata() throws {
        let huge = try configs(accessory("Fan", ["B7"], ["29": { $0.maxValue = 1e300 }]))
        #expect(try #require(huge["fan/s8"])["speed_range_max"] as? Int == 100)
        let tiny = try configs(accessory("Fan", ["B7"], ["29": { $0.minStep = 1e-18 }]))
        #expect(try #require(tiny["fan/s8"])["speed_range_max"] as? Int == 100)
        let spanning = try configs(
            accessory(
                "Fan", ["B7"],
                [
                    "29": {
                        $0.minValue = -1e308
                        $0.maxValue = 1e308
                    }
                ]))
        #expect(spanning["fan/s8"]?["speed_range_max"] == nil, "no speeds from a range that is no number")
        let blind = try configs(accessory("Blind", ["8C"], ["7B": { $0.minValue = -1e300 }]))
        let cover = try #require(blind["cover/s8"])
        #expect(cover["tilt_min"] as? Int == -1_000_000_000_000_000 && cover["tilt_max"] as? Int == 90)
        let humidifier = try configs(
            accessory(
                "Humidifier", ["BD"],
                [
                    "CA": {
                        $0.minValue = -1e300
                        $0.maxValue = 1e300
                    }
                ]))
        let main = try #require(humidifier.values.first { $0["device_class"] as? String == "humidifier" })
        #expect(main["min_humidity"] as? Int == 0 && main["max_humidity"] as? Int == 100, "\(main)")
    }

    @Test(
        "every service of the catalog, with every number's range and step absurd, gives its configs without a trap",
        arguments: [(-1e300, 1e300, 1e-18), (0, 1e300, 1), (-1e300, 0, 1e300), (100, 0, 0.5)])
    func absurdMetadataEverywhere(low: Double, high: Double, step: Double) throws {
        for service in HAPCatalog.services {
            var made = accessory("Any", [service.type.shortForm])
            for s in made.services.indices {
                for c in made.services[s].characteristics.indices
                where made.services[s].characteristics[c].format.isNumeric {
                    made.services[s].characteristics[c].minValue = low
                    made.services[s].characteristics[c].maxValue = high
                    made.services[s].characteristics[c].minStep = step
                }
            }
            _ = try configs(made)
        }
    }

    @Test("a heater-cooler has one target in heat or cool mode (the threshold of the mode shown), fan modes and swing")
    func heaterCooler() throws {
        let climate = try #require(try configs(accessory("Heater", ["BC"]))["climate/s8"])
        #expect(climate["temperature_command_topic"] as? String == "hap2mqtt/device/set")
        let write = try #require(climate["temperature_command_template"] as? String)
        #expect(
            write
                == #"{% if this.state == 'cool' %}{"heater_cooler":{"cooling_threshold_temperature":{{ value }}}}{% else %}{"heater_cooler":{"heating_threshold_temperature":{{ value }}}}{% endif %}"#
        )
        #expect(
            (climate["temperature_low_state_template"] as? String)?.contains("== 0 else 'None'") == true,
            "the range only in auto mode")
        #expect(climate["fan_modes"] as? [String] == ["off", "low", "medium", "high"])
        #expect(
            climate["fan_mode_command_template"] as? String == "{{ {'off':0,'low':33,'medium':67,'high':100}[value] }}")
        #expect(climate["swing_modes"] as? [String] == ["on", "off"])
    }

    @Test("an air purifier is a fan with auto/manual presets; a humidifier-dehumidifier a humidifier per threshold")
    func airPurifierAndHumidifier() throws {
        let purifier = try #require(try configs(accessory("Purifier", ["BB", "BA"]))["fan/s8"])
        #expect(
            purifier["preset_modes"] as? [String] == ["manual", "auto"] && purifier["payload_on"] as? String == "1")
        let humidifier = try configs(accessory("Humidifier", ["BD"]))
        let main = try #require(humidifier["humidifier/s8"])
        #expect(main["device_class"] as? String == "humidifier" && main["modes"] as? [String] == ["normal", "auto"])
        #expect(
            main["mode_command_template"] as? String
                == #"{"humidifier_dehumidifier":{"active":1,"target_humidifier_dehumidifier_state":{{ {'normal':1,'auto':0}[value] }}}}"#
        )
        #expect(main["mode_command_topic"] as? String == "hap2mqtt/device/set")
        #expect(
            main["target_humidity_command_topic"] as? String
                == "hap2mqtt/device/humidifier_dehumidifier/relative_humidity_humidifier_threshold/set")
        let second = try #require(
            humidifier.first { $0.key.hasPrefix("humidifier/") && $0.key != "humidifier/s8" }?.value)
        #expect(second["device_class"] as? String == "dehumidifier" && second["name"] as? String == "Dehumidifier")
        #expect(second["modes"] as? [String] == ["normal", "auto"], "normal is dehumidifying (2) for this one")
    }

    @Test(
        "a television's input select lists its shown input sources by name; a camera is an image with a refresh button")
    func televisionAndCamera() throws {
        var tv = accessory("TV", ["D8"])
        let parent = tv.services[1].iid
        for (identifier, name, visibility) in [(1, "HDMI 1", 0), (2, "Apple TV", 0), (3, "Hidden", 1)] {
            tv = adding(
                "D9",
                [
                    make("E3", .string(name)), make("DB", .int(3)), make("D6", .int(1)),
                    make("135", .int(Int64(visibility))), make("E6", .int(Int64(identifier))),
                ],
                to: tv, linkedFrom: parent)
        }
        let built = try configs(tv)
        let input = try #require(built.values.first { $0["name"] as? String == "Input source" })
        #expect(input["options"] as? [String] == ["HDMI 1", "Apple TV"])
        #expect(input["command_template"] as? String == "{{ {'HDMI 1':1,'Apple TV':2}[value] }}")
        #expect(
            !built.values.contains { ($0["name"] as? String)?.contains("Input source 2") == true },
            "input sources get no entities of their own")

        var cameraAccessory = accessory("Camera", ["112", "110", "110"])
        // As HAP-python's camera: no service is primary.
        for index in cameraAccessory.services.indices { cameraAccessory.services[index].isPrimary = false }
        let camera = try configs(cameraAccessory)
        let image = try #require(camera.values.first { $0["image_topic"] != nil })
        #expect(
            image["image_topic"] as? String == "hap2mqtt/device/camera_rtp_stream_management/snapshot"
                && image["content_type"] as? String == "image/jpeg")
        #expect(image["name"] is NSNull, "the camera's stream, not its microphone, is the main service")
        #expect(camera.values.filter { $0["image_topic"] != nil }.count == 1, "one image per camera")
        #expect(
            camera.values.filter { $0["topic"] as? String == image["image_topic"] as? String }.count == 1,
            "one camera entity on the same snapshot, as Home Assistant's HomeKit Controller has")
        #expect(
            camera.values.contains {
                $0["command_topic"] as? String == "hap2mqtt/device/camera_rtp_stream_management/snapshot/get"
            })
    }
}
