import Foundation
import Gateway
import HAP2MQTTTesting
import HomeModel
import HomeStore
import MQTT
import Testing

/// The gateway with a real Home Assistant (2024.3.3 or 2026.11.0: `HomeAssistantVersion.current`) on loopback:
/// what a Home Assistant user sees and does.
@Suite("Home Assistant: discovery with a real Home Assistant", .serialized)
struct HomeAssistantIntegrationTests {
    /// Main entity of each demo accessory, as Home Assistant names it (device name alone).
    static let mainEntities = [
        "light.kitchen_lamp", "switch.desk_switch", "switch.coffee_outlet", "sensor.living_temperature",
        "sensor.bath_humidity", "binary_sensor.window_contact", "binary_sensor.hall_motion", "lock.front_door",
        "climate.hall_thermostat", "cover.bedroom_blind", "event.porch_button",
    ]

    @Test("every accessory appears as a device with entities in the right domains and the accessory's values")
    func devicesAndStates() async throws {
        try await HomeAssistantDemoHome.with { home in
            let ha = home.homeAssistant
            for entity in Self.mainEntities {
                try await ha.waitForState(entity) { $0.state != "unavailable" || entity.hasPrefix("event.") }
            }
            for (_, name, _, _) in HomeAssistantDemoHome.accessories {
                let entities = try await ha.deviceEntities(named: name)
                #expect(entities.contains { Self.mainEntities.contains($0) }, "\(name): \(entities)")
                #expect(
                    entities.contains { $0.hasPrefix("button.") && $0.hasSuffix("_identify") },
                    "\(name) has an identify button: \(entities)")
            }
            let lamp = try #require(try await ha.state("light.kitchen_lamp"))
            #expect(lamp.state == "on")
            #expect(lamp.attributes["brightness"]?.number == 128)  // 50 % of 255
            #expect(
                lamp.attributes["hs_color"]?.numbers == [120, 80] || lamp.attributes["color_temp"]?.number == 300,
                "\(lamp)")
            #expect(lamp.attributes["supported_color_modes"]?.strings.map(Set.init) == ["hs", "color_temp"])
            #expect(lamp.miredRange == 140...500, "\(lamp)")
            #expect(try await ha.state("switch.desk_switch")?.state == "on")
            #expect(try await ha.state("switch.coffee_outlet")?.state == "off")
            #expect(try await ha.state("switch.coffee_outlet")?.attributes["device_class"]?.string == "outlet")
            #expect(try await ha.state("binary_sensor.coffee_outlet_outlet_in_use")?.state == "on")
            let temperature = try #require(try await ha.state("sensor.living_temperature"))
            #expect(temperature.state == "21.5" && temperature.attributes["unit_of_measurement"]?.string == "°C")
            #expect(
                temperature.attributes["device_class"]?.string == "temperature"
                    && temperature.attributes["state_class"]?.string == "measurement")
            #expect(try await ha.state("sensor.bath_humidity")?.state == "55")
            let contact = try #require(try await ha.state("binary_sensor.window_contact"))
            #expect(
                contact.state == "on" && contact.attributes["device_class"]?.string == "door",
                "ContactSensorState 1 is open")
            #expect(try await ha.state("binary_sensor.hall_motion")?.state == "on")
            #expect(try await ha.state("lock.front_door")?.state == "unlocked")
            let thermostat = try #require(try await ha.state("climate.hall_thermostat"))
            #expect(thermostat.state == "heat")
            #expect(thermostat.attributes["current_temperature"]?.number == 19.5)
            // 2026.11 shows no `temperature` attribute for this thermostat since its config offers heat_cool
            // (a target range) as well; the cause is not yet found.
            withKnownIssue("Home Assistant 2026.11 shows no target temperature for a thermostat with heat_cool") {
                #expect(thermostat.attributes["temperature"]?.number == 21, "\(thermostat)")
            } when: {
                ha.version == .v2026
            }
            #expect(thermostat.attributes["hvac_action"]?.string == "heating")
            #expect(thermostat.attributes["hvac_modes"]?.strings.map(Set.init) == ["off", "heat", "cool", "heat_cool"])
            let blind = try #require(try await ha.state("cover.bedroom_blind"))
            #expect(blind.state == "open" && blind.attributes["current_position"]?.number == 100)
            let button = try #require(try await ha.state("event.porch_button"))
            #expect(button.state == "unknown", "a retained or replayed value never fires the event")
            #expect(button.attributes["event_types"]?.strings == ["single_press", "double_press", "long_press"])
            try await home.homeAssistant.expectNoProblems()
            let log = try await ha.errorLog()
            #expect(log.contains("Skipping pip installation"), "the log read is Home Assistant's own")
            if ha.isIsolated {
                #expect(
                    log.contains("does not have any enabled IPv4 addresses"),
                    "in its own network namespace it sees only loopback")
            }
        }
    }

    @Test("Home Assistant's service calls reach the accessory as HomeKit values, and its state follows")
    func serviceCalls() async throws {
        try await HomeAssistantDemoHome.with { home in
            let ha = home.homeAssistant
            let provider = home.gateway.provider
            for entity in Self.mainEntities where !entity.hasPrefix("event.") {
                try await ha.waitForState(entity) { $0.state != "unavailable" }
            }

            try await ha.callService(
                "light", "turn_on", ["entity_id": "light.kitchen_lamp", "brightness": 255, "hs_color": [240, 100]])
            let hue = home.address(2, "13")
            let saturation = home.address(2, "2F")
            let colour = try await home.waitForWrite { batch in Set(batch.map(\.address)) == [hue, saturation] }
            #expect(
                colour.first { $0.address == hue }?.value == .float(240)
                    && colour.first { $0.address == saturation }?.value == .float(100),
                "hue and saturation in one HAP write: \(colour)")
            _ = try await home.waitForWrite {
                $0.contains { $0.address == home.address(2, "8") && $0.value == .int(100) }
            }
            let lamp = try await ha.waitForState("light.kitchen_lamp") {
                $0.attributes["hs_color"]?.numbers == [240, 100] && $0.attributes["brightness"]?.number == 255
            }
            #expect(lamp.state == "on")

            try await ha.callService("light", "turn_on", ["entity_id": "light.kitchen_lamp", "brightness_pct": 30])
            _ = try await home.waitForWrite {
                $0.contains { $0.address == home.address(2, "8") && $0.value == .int(30) }
            }
            // 30 % of 255, rounded half to even.
            try await ha.waitForState("light.kitchen_lamp") { $0.attributes["brightness"]?.number == 76 }

            try await ha.callService("switch", "turn_off", ["entity_id": "switch.desk_switch"])
            _ = try await home.waitForWrite {
                $0.contains { $0.address == home.address(3, "25") && $0.value == .bool(false) }
            }
            try await ha.waitForState("switch.desk_switch") { $0.state == "off" }

            try await ha.callService("lock", "lock", ["entity_id": "lock.front_door"])
            _ = try await home.waitForWrite {
                $0.contains { $0.address == home.address(9, "1E") && $0.value == .int(1) }
            }
            // The target is set, the bolt has not moved yet.
            try await ha.waitForState("lock.front_door") { $0.state == "locking" }
            provider.changeValue(home.address(9, "1D"), to: .int(1))  // the bolt has moved
            try await ha.waitForState("lock.front_door") { $0.state == "locked" }

            try await ha.callService(
                "climate", "set_temperature", ["entity_id": "climate.hall_thermostat", "temperature": 22.5])
            _ = try await home.waitForWrite {
                $0.contains { $0.address == home.address(10, "35") && $0.value == .float(22.5) }
            }
            try await ha.waitForState("climate.hall_thermostat") { $0.attributes["temperature"]?.number == 22.5 }
            try await ha.callService(
                "climate", "set_hvac_mode", ["entity_id": "climate.hall_thermostat", "hvac_mode": "cool"])
            _ = try await home.waitForWrite {
                $0.contains { $0.address == home.address(10, "33") && $0.value == .int(2) }
            }
            try await ha.waitForState("climate.hall_thermostat") { $0.state == "cool" }

            try await ha.callService(
                "cover", "set_cover_position", ["entity_id": "cover.bedroom_blind", "position": 40])
            _ = try await home.waitForWrite {
                $0.contains { $0.address == home.address(11, "7C") && $0.value == .int(40) }
            }
            provider.changeValues([(home.address(11, "72"), .int(0)), (home.address(11, "6D"), .int(70))])
            try await ha.waitForState("cover.bedroom_blind") {
                $0.state == "closing" && $0.attributes["current_position"]?.number == 70
            }
            provider.changeValues([(home.address(11, "72"), .int(2)), (home.address(11, "6D"), .int(40))])
            try await ha.waitForState("cover.bedroom_blind") {
                $0.state == "open" && $0.attributes["current_position"]?.number == 40
            }

            try await ha.callService("button", "press", ["entity_id": "button.front_door_identify"])
            _ = try await home.waitForWrite {
                $0.contains { $0.address == home.address(9, "14") && $0.value == .bool(true) }
            }
        }
    }

    @Test(
        "unreachable accessories become unavailable and come back; changes on the accessory, button presses and new topics reach Home Assistant"
    )
    func availabilityAndEvents() async throws {
        try await HomeAssistantDemoHome.with { home in
            let ha = home.homeAssistant
            let provider = home.gateway.provider
            try await ha.waitForState("light.kitchen_lamp") { $0.state == "on" }
            provider.setReachable([HomeAssistantDemoHome.id(2)], false)
            try await ha.waitForState("light.kitchen_lamp") { $0.state == "unavailable" }
            #expect(try await ha.state("switch.desk_switch")?.state == "on", "other accessories stay available")
            provider.setReachable([HomeAssistantDemoHome.id(2)], true)
            try await ha.waitForState("light.kitchen_lamp") { $0.state == "on" }

            provider.changeValue(home.address(5, "11"), to: .float(23.4))
            try await ha.waitForState("sensor.living_temperature") { $0.state == "23.4" }
            provider.changeValue(home.address(7, "6A"), to: .int(0))
            try await ha.waitForState("binary_sensor.window_contact") { $0.state == "off" }

            provider.changeValue(home.address(12, "73"), to: .int(1), source: .event)
            let pressed = try await ha.waitForState("event.porch_button") {
                $0.attributes["event_type"]?.string == "double_press"
            }
            provider.changeValue(home.address(12, "73"), to: .int(2), source: .poll)
            try await Task.sleep(for: .seconds(1))
            #expect(try await ha.state("event.porch_button") == pressed, "a polled value does not fire the event")

            // New topics for the lamp: Home Assistant keeps the same entity and follows the new topics.
            try await home.gateway.observer.publish(
                "hap2mqtt/bridge/request/rename", #"{"accessory":"kitchen_lamp","to":"island_lamp"}"#)
            _ = try await home.gateway.observer.waitFor(topic: "hap2mqtt/bridge/response/rename")
            provider.changeValue(home.address(2, "25"), to: .bool(false))
            _ = try await home.gateway.observer.waitFor(topic: "hap2mqtt/island_lamp/lightbulb/on") {
                $0.payloadString == "false"
            }
            try await ha.waitForState("light.kitchen_lamp") { $0.state == "off" }
            try await ha.callService("light", "turn_on", ["entity_id": "light.kitchen_lamp"])
            _ = try await home.waitForWrite {
                $0.contains { $0.address == home.address(2, "25") && $0.value == .bool(true) }
            }
            try await ha.waitForState("light.kitchen_lamp") { $0.state == "on" }

            await home.gateway.gateway.stop()
            try await ha.waitForState("switch.desk_switch") { $0.state == "unavailable" }
        }
    }

    @Test(
        "after a Home Assistant restart every entity is back, none twice, with the values the accessories took meanwhile"
    )
    func homeAssistantRestart() async throws {
        try await HomeAssistantDemoHome.with { home in
            let ha = home.homeAssistant
            for entity in Self.mainEntities {
                try await ha.waitForState(entity) { $0.state != "unavailable" || entity.hasPrefix("event.") }
            }
            let count = "{{ integration_entities('mqtt') | count }}"
            let entitiesBefore = try await ha.renderTemplate(count)
            let lampBefore = try await ha.deviceEntities(named: "Kitchen Lamp")
            try await ha.restart {
                home.gateway.provider.changeValue(home.address(2, "25"), to: .bool(false))
                home.gateway.provider.changeValue(home.address(7, "6A"), to: .int(0))
                _ = try await home.gateway.observer.waitFor(topic: "hap2mqtt/kitchen_lamp/lightbulb/on") {
                    $0.payloadString == "false"
                }
            }
            try await ha.waitForState("light.kitchen_lamp") { $0.state == "off" }
            try await ha.waitForState("binary_sensor.window_contact") { $0.state == "off" }
            for entity in Self.mainEntities {
                try await ha.waitForState(entity) { $0.state != "unavailable" || entity.hasPrefix("event.") }
            }
            #expect(try await ha.renderTemplate(count) == entitiesBefore)
            #expect(try await ha.deviceEntities(named: "Kitchen Lamp") == lampBefore)
            try await ha.callService("light", "turn_on", ["entity_id": "light.kitchen_lamp"])
            _ = try await home.waitForWrite {
                $0.contains { $0.address == home.address(2, "25") && $0.value == .bool(true) }
            }
            try await home.homeAssistant.expectNoProblems()
        }
    }

    @Test("a scene is a scene entity that recalls it, a group of lights one light that switches both in one request")
    func scenesAndGroups() async throws {
        let lamps = [
            InMemoryAccessoryProvider.accessory(aid: 2, name: "Kitchen Lamp", services: [.Service.lightbulb]),
            InMemoryAccessoryProvider.accessory(aid: 3, name: "Desk Lamp", services: [.Service.lightbulb]),
        ]
        try await HomeAssistantDemoHome.with(accessories: lamps) { home in
            let ha = home.homeAssistant
            let observer = home.gateway.observer
            for (command, payload) in [
                (
                    "scene_store",
                    #"{"name":"Evening","values":{"kitchen_lamp":{"lightbulb":{"on":true,"brightness":30}},"desk_lamp":{"lightbulb":{"on":true}}}}"#
                ),
                ("group_add", #"{"name":"Lights","members":["kitchen_lamp","desk_lamp"]}"#),
            ] {
                try await observer.publish("hap2mqtt/bridge/request/\(command)", payload)
                let answer = try await observer.waitFor(topic: "hap2mqtt/bridge/response/\(command)")
                #expect(answer.payloadString?.hasPrefix(#"{"status":"ok""#) == true, "\(answer.payloadString ?? "")")
            }
            // Entities of the gateway's own device, whose name Home Assistant puts first.
            var entities: [String] = []
            do {
                try await eventually("the scene and the group in Home Assistant", timeout: .seconds(30)) {
                    entities = try await ha.deviceEntities(named: "hap2mqtt")
                    return entities.contains("scene.hap2mqtt_evening") && entities.contains("light.hap2mqtt_lights")
                }
            } catch {
                Issue.record("the hap2mqtt device's entities: \(entities)")
                throw error
            }
            _ = try await ha.waitForState("light.hap2mqtt_lights") { $0.state == "off" }
            try await ha.callService("scene", "turn_on", ["entity_id": "scene.hap2mqtt_evening"])
            let recall = try await home.waitForWrite { $0.count == 3 }
            #expect(Set(recall.map(\.address.accessory.aid)) == [2, 3], "one request for both lamps")
            _ = try await ha.waitForState("light.hap2mqtt_lights") { $0.state == "on" }
            try await ha.callService("light", "turn_off", ["entity_id": "light.hap2mqtt_lights"])
            _ = try await home.waitForWrite { writes in
                writes.count == 2 && writes.allSatisfy { $0.value == .bool(false) }
            }
            _ = try await ha.waitForState("light.hap2mqtt_lights") { $0.state == "off" }
            try await home.homeAssistant.expectNoProblems()
        }
    }

    @Test("Home Assistant accepts the configs of every mapped service type, each with its main entity")
    func everyServiceType() async throws {
        let mapped = HomeAssistantDiscoveryTests.mainComponents
        let accessories = mapped.enumerated().map { index, entry in
            InMemoryAccessoryProvider.accessory(
                aid: index + 2, name: "Type \(index + 2)", services: [HAPCatalog.service(named: entry.service)!.type])
        }
        try await HomeAssistantDemoHome.with(accessories: accessories) { home in
            let ha = home.homeAssistant
            for (index, entry) in mapped.enumerated() {
                let entity = "\(entry.component).type_\(index + 2)"
                let state = try await ha.waitForState(entity) {
                    $0.state != "unavailable" || entry.component == "event"
                }
                #expect(state.domain == entry.component, "\(entry.service)")
            }
            let provider = home.gateway.provider

            // HeaterCooler: the mode is Active and TargetHeaterCoolerState together, written in one request.
            try await ha.callService("climate", "set_hvac_mode", ["entity_id": "climate.type_18", "hvac_mode": "cool"])
            let active = home.address(18, "B0")
            let target = home.address(18, "B2")
            let both = try await home.waitForWrite { Set($0.map(\.address)) == [active, target] }
            #expect(both.map(\.value).sorted { $0.description < $1.description } == [.int(1), .int(2)], "\(both)")
            try await ha.waitForState("climate.type_18") { $0.state == "cool" }
            try await ha.callService("climate", "set_hvac_mode", ["entity_id": "climate.type_18", "hvac_mode": "off"])
            _ = try await home.waitForWrite {
                $0.count == 1 && $0.first?.address == active && $0.first?.value == .int(0)
            }
            try await ha.waitForState("climate.type_18") { $0.state == "off" }

            // GarageDoorOpener: TargetDoorState 1 closes; CurrentDoorState 3 is closing.
            try await ha.callService("cover", "close_cover", ["entity_id": "cover.type_22"])
            _ = try await home.waitForWrite {
                $0.contains { $0.address == home.address(22, "32") && $0.value == .int(1) }
            }
            provider.changeValue(home.address(22, "E"), to: .int(3))
            try await ha.waitForState("cover.type_22") { $0.state == "closing" }

            // Fanv2: on is Active 1, the speed is RotationSpeed in percent.
            try await ha.callService("fan", "turn_on", ["entity_id": "fan.type_25", "percentage": 50])
            _ = try await home.waitForWrite {
                $0.contains { $0.address == home.address(25, "29") && $0.value == .float(50) }
            }
            _ = try await home.waitForWrite {
                $0.contains { $0.address == home.address(25, "B0") && $0.value == .int(1) }
            }
            try await ha.waitForState("fan.type_25") { $0.state == "on" && $0.attributes["percentage"]?.number == 50 }

            // SecuritySystem: away is 1 on both characteristics.
            try await ha.callService(
                "alarm_control_panel", "alarm_arm_away", ["entity_id": "alarm_control_panel.type_28"])
            _ = try await home.waitForWrite {
                $0.contains { $0.address == home.address(28, "67") && $0.value == .int(1) }
            }
            provider.changeValue(home.address(28, "66"), to: .int(1))
            try await ha.waitForState("alarm_control_panel.type_28") { $0.state == "armed_away" }

            // Valve: a switch on Active.
            try await ha.callService("switch", "turn_on", ["entity_id": "switch.type_26"])
            _ = try await home.waitForWrite {
                $0.contains { $0.address == home.address(26, "B0") && $0.value == .int(1) }
            }
            try await ha.waitForState("switch.type_26") { $0.state == "on" }

            try await home.homeAssistant.expectNoProblems()
        }
    }
}
