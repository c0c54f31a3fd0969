import Foundation
import Gateway
import HAP2MQTTTesting
import HomeModel
import HomeStore
import MQTT
import Testing

/// The gateway with a real Home Assistant 2024.3.3 on loopback: what a Home Assistant user sees and does.
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
        for entity in Self.mainEntities { try await ha.waitForState(entity) { $0.state != "unavailable" || entity.hasPrefix("event.") } }
        for (_, name, _, _) in HomeAssistantDemoHome.accessories {
            let entities = try await ha.deviceEntities(named: name)
            #expect(entities.contains { Self.mainEntities.contains($0) }, "\(name): \(entities)")
            #expect(entities.contains { $0.hasPrefix("button.") && $0.hasSuffix("_identify") }, "\(name) has an identify button: \(entities)")
        }
        let lamp = try #require(try await ha.state("light.kitchen_lamp"))
        #expect(lamp.state == "on")
        #expect(lamp.attributes["brightness"]?.number == 128)  // 50 % of 255
        #expect(lamp.attributes["hs_color"]?.numbers == [120, 80] || lamp.attributes["color_temp"]?.number == 300, "\(lamp)")
        #expect(lamp.attributes["supported_color_modes"]?.strings.map(Set.init) == ["hs", "color_temp"])
        #expect(lamp.attributes["min_mireds"]?.number == 140 && lamp.attributes["max_mireds"]?.number == 500)
        #expect(try await ha.state("switch.desk_switch")?.state == "on")
        #expect(try await ha.state("switch.coffee_outlet")?.state == "off")
        #expect(try await ha.state("switch.coffee_outlet")?.attributes["device_class"]?.string == "outlet")
        #expect(try await ha.state("binary_sensor.coffee_outlet_outlet_in_use")?.state == "on")
        let temperature = try #require(try await ha.state("sensor.living_temperature"))
        #expect(temperature.state == "21.5" && temperature.attributes["unit_of_measurement"]?.string == "°C")
        #expect(temperature.attributes["device_class"]?.string == "temperature" && temperature.attributes["state_class"]?.string == "measurement")
        #expect(try await ha.state("sensor.bath_humidity")?.state == "55")
        let contact = try #require(try await ha.state("binary_sensor.window_contact"))
        #expect(contact.state == "on" && contact.attributes["device_class"]?.string == "door", "ContactSensorState 1 is open")
        #expect(try await ha.state("binary_sensor.hall_motion")?.state == "on")
        #expect(try await ha.state("lock.front_door")?.state == "unlocked")
        let thermostat = try #require(try await ha.state("climate.hall_thermostat"))
        #expect(thermostat.state == "heat")
        #expect(thermostat.attributes["current_temperature"]?.number == 19.5)
        #expect(thermostat.attributes["temperature"]?.number == 21)
        #expect(thermostat.attributes["hvac_action"]?.string == "heating")
        #expect(thermostat.attributes["hvac_modes"]?.strings.map(Set.init) == ["off", "heat", "cool", "auto"])
        let blind = try #require(try await ha.state("cover.bedroom_blind"))
        #expect(blind.state == "open" && blind.attributes["current_position"]?.number == 100)
        let button = try #require(try await ha.state("event.porch_button"))
        #expect(button.state == "unknown", "a retained or replayed value never fires the event")
        #expect(button.attributes["event_types"]?.strings == ["single_press", "double_press", "long_press"])
        let log = try await ha.errorLog()
        let problems = log.split(separator: "\n").filter { $0.contains("mqtt") && ($0.contains("ERROR") || $0.contains("WARNING")) }
        #expect(problems.isEmpty, "Home Assistant logged MQTT problems:\n\(problems.joined(separator: "\n"))")
        }
    }
}
