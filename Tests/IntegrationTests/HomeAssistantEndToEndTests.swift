import Foundation
import HAP2MQTTTesting
import HomeAssistantTesting
import HomeModel
import Testing

/// What a Home Assistant user sees and does, with every part real: Home Assistant
/// (`HomeAssistantVersion.current`), mosquitto, the real `hap2mqtt` binary and the demo HAP-python bridge
/// of `scripts/demo`, all on loopback. One
/// Home Assistant start serves every check (it takes about ten seconds), so the checks run in order
/// inside one test.
@Suite("Home Assistant end to end: the real binary, the demo bridge and a real Home Assistant")
struct HomeAssistantEndToEndTests {
    /// Each demo accessory (device name) and its main entity, named after the device.
    static let mainEntities: KeyValuePairs = [
        "Desk Lamp": "light.desk_lamp",
        "Fan": "switch.fan",
        "Kettle": "switch.kettle",
        "Room Temperature": "sensor.room_temperature",
        "Room Humidity": "sensor.room_humidity",
        "Front Door": "binary_sensor.front_door",
        "Hallway Motion": "binary_sensor.hallway_motion",
        "Front Door Lock": "lock.front_door_lock",
        "Thermostat": "climate.thermostat",
        "Bedroom Blind": "cover.bedroom_blind",
    ]

    @Test(
        "every demo accessory is a Home Assistant device; service calls reach the accessory; availability and accessory-side changes follow; no discovery error"
    )
    func homeAssistantWithTheDemoBridge() async throws {
        try await HomeAssistantDemoSetup.with { setup in
            try await expectDevicesWithTheAccessoriesValues(setup)
            print(
                "Home Assistant's devices and entities for the demo bridge, with their starting states:\n\(try await setup.homeAssistant.entityTable())"
            )
            try await expectServiceCallsRunTheSetters(setup)
            try await expectAccessoryChangesReachHomeAssistant(setup)
            try await expectAvailabilityFollowsTheBridgeProcess(setup)
            try await setup.homeAssistant.expectNoProblems()
            #expect(
                try await setup.homeAssistant.errorLog().contains("Skipping pip installation"),
                "the log read is Home Assistant's own")
        }
    }

    /// Every accessory is a device with its main entity in the right domain and an identify button, and
    /// each state shows the value the accessory holds.
    private func expectDevicesWithTheAccessoriesValues(_ setup: HomeAssistantDemoSetup) async throws {
        let ha = setup.homeAssistant
        for (_, entity) in Self.mainEntities {
            try await setup.waitForState(entity, timeout: .seconds(60)) {
                $0.state != "unavailable" && $0.state != "unknown"
            }
        }
        for (device, entity) in Self.mainEntities {
            let entities = try await ha.deviceEntities(named: device)
            #expect(entities.contains(entity), "\(device): \(entities)")
            #expect(
                entities.contains { $0.hasPrefix("button.") && $0.hasSuffix("_identify") },
                "\(device) has an identify button: \(entities)")
        }
        let bridge = setup.bridge

        let lamp = try #require(try await ha.state("light.desk_lamp"))
        #expect(lamp.state == onOff(try await bridge.value(accessory: "Desk Lamp", characteristic: "On")))
        #expect(lamp.attributes["supported_color_modes"]?.strings.map(Set.init) == ["hs", "color_temp"], "\(lamp)")
        #expect(lamp.miredRange == 140...500, "\(lamp)")
        for (entity, accessory) in [("switch.fan", "Fan"), ("switch.kettle", "Kettle")] {
            #expect(
                try await ha.state(entity)?.state
                    == onOff(try await bridge.value(accessory: accessory, characteristic: "On")))
        }
        #expect(try await ha.state("switch.kettle")?.attributes["device_class"]?.string == "outlet")
        #expect(
            try await ha.state("binary_sensor.kettle_outlet_in_use")?.state
                == onOff(try await bridge.value(accessory: "Kettle", characteristic: "OutletInUse")))

        // The room temperature drifts every 10 s: Home Assistant follows, so it matches at some moment.
        try await eventually("sensor.room_temperature to show the accessory's temperature", timeout: .seconds(30)) {
            try await ha.state("sensor.room_temperature").flatMap { Double($0.state) }
                == (try await setup.number("Room Temperature", "CurrentTemperature"))
        }
        let temperature = try #require(try await ha.state("sensor.room_temperature"))
        #expect(
            temperature.attributes["unit_of_measurement"]?.string == "°C"
                && temperature.attributes["device_class"]?.string == "temperature")
        #expect(temperature.attributes["state_class"]?.string == "measurement")
        let humidity = try #require(try await ha.state("sensor.room_humidity"))
        #expect(
            Double(humidity.state) == (try await setup.number("Room Humidity", "CurrentRelativeHumidity")),
            "\(humidity)")
        #expect(
            humidity.attributes["unit_of_measurement"]?.string == "%"
                && humidity.attributes["device_class"]?.string == "humidity")

        let door = try #require(try await ha.state("binary_sensor.front_door"))
        #expect(
            door.state == ((try await setup.number("Front Door", "ContactSensorState")) == 1 ? "on" : "off"),
            "ContactSensorState 1 is open: \(door)")
        #expect(door.attributes["device_class"]?.string == "door")
        let motion = try #require(try await ha.state("binary_sensor.hallway_motion"))
        #expect(
            motion.state == onOff(try await bridge.value(accessory: "Hallway Motion", characteristic: "MotionDetected"))
        )
        #expect(motion.attributes["device_class"]?.string == "motion")

        #expect(try await setup.number("Front Door Lock", "LockCurrentState") == 1)
        #expect(try await ha.state("lock.front_door_lock")?.state == "locked")

        let thermostat = try #require(try await ha.state("climate.thermostat"))
        #expect(try await setup.number("Thermostat", "TargetHeatingCoolingState") == 0)
        #expect(thermostat.state == "off", "TargetHeatingCoolingState 0 is off: \(thermostat)")
        #expect(
            thermostat.attributes["temperature"]?.number == (try await setup.number("Thermostat", "TargetTemperature")))
        #expect(thermostat.attributes["hvac_modes"]?.strings.map(Set.init) == ["off", "heat", "cool", "auto"])
        try await eventually("climate.thermostat to show the room's temperature", timeout: .seconds(30)) {
            try await ha.state("climate.thermostat")?.attributes["current_temperature"]?.number
                == (try await setup.number("Thermostat", "CurrentTemperature"))
        }

        let blind = try #require(try await ha.state("cover.bedroom_blind"))
        let position = try await setup.number("Bedroom Blind", "CurrentPosition")
        #expect(
            blind.attributes["current_position"]?.number == position
                && blind.state == (position == 0 ? "closed" : "open"), "\(blind)")
    }

    /// Home Assistant's service calls run the accessory's setters with HomeKit's values, and Home
    /// Assistant's state follows what the accessory then reports.
    private func expectServiceCallsRunTheSetters(_ setup: HomeAssistantDemoSetup) async throws {
        let ha = setup.homeAssistant
        let bridge = setup.bridge

        // Home Assistant's brightness is 0–255, HomeKit's a percentage: 128 is 50 %. The colour is one write.
        var skipping = bridge.writeRequests.count
        try await ha.callService(
            "light", "turn_on", ["entity_id": "light.desk_lamp", "brightness": 128, "hs_color": [240, 100]])
        // The bridge records a request's writes one line at a time: wait for the request to hold both, which
        // it never does if they came in two requests (the time-out then lists what came).
        let colour = try await bridge.waitForRequest(skipping: skipping) {
            Set($0.map(\.characteristic)).isSuperset(of: ["Hue", "Saturation"])
        }
        #expect(
            colour.map(\.characteristic).sorted() == ["Hue", "Saturation"],
            "hue and saturation in one HAP request: \(colour)")
        #expect(colour.first { $0.characteristic == "Hue" }?.value?.doubleValue == 240)
        #expect(colour.first { $0.characteristic == "Saturation" }?.value?.doubleValue == 100)
        try await bridge.waitForRequest(skipping: skipping) {
            $0.contains { $0.characteristic == "Brightness" && $0.value?.doubleValue == 50 }
        }
        try await bridge.waitForRequest(skipping: skipping) {
            $0.contains { $0.characteristic == "On" && $0.value == .bool(true) }
        }
        let lamp = try await setup.waitForState("light.desk_lamp") {
            $0.state == "on" && $0.attributes["hs_color"]?.numbers == [240, 100]
        }
        #expect(lamp.attributes["brightness"]?.number == 128, "50 % shown as 128 of 255: \(lamp)")
        #expect(lamp.attributes["color_mode"]?.string == "hs")

        // The lock's state follows LockCurrentState, which the demo lock moves after its target.
        skipping = bridge.writeRequests.count
        try await ha.callService("lock", "unlock", ["entity_id": "lock.front_door_lock"])
        try await bridge.waitForRequest(skipping: skipping) {
            $0 == [.init(accessory: "Front Door Lock", characteristic: "LockTargetState", value: .int(0))]
        }
        try await setup.waitForState("lock.front_door_lock") { $0.state == "unlocked" }
        skipping = bridge.writeRequests.count
        try await ha.callService("lock", "lock", ["entity_id": "lock.front_door_lock"])
        try await bridge.waitForRequest(skipping: skipping) {
            $0 == [.init(accessory: "Front Door Lock", characteristic: "LockTargetState", value: .int(1))]
        }
        try await setup.waitForState("lock.front_door_lock") { $0.state == "locked" }
        #expect(try await setup.number("Front Door Lock", "LockCurrentState") == 1)

        skipping = bridge.writeRequests.count
        try await ha.callService(
            "climate", "set_temperature", ["entity_id": "climate.thermostat", "temperature": 22.5])
        let target = try await bridge.waitForRequest(skipping: skipping) {
            $0.contains { $0.characteristic == "TargetTemperature" }
        }
        #expect(target.first?.value?.doubleValue == 22.5, "\(target)")
        try await setup.waitForState("climate.thermostat") { $0.attributes["temperature"]?.number == 22.5 }
        skipping = bridge.writeRequests.count
        try await ha.callService("climate", "set_hvac_mode", ["entity_id": "climate.thermostat", "hvac_mode": "heat"])
        try await bridge.waitForRequest(skipping: skipping) {
            $0 == [.init(accessory: "Thermostat", characteristic: "TargetHeatingCoolingState", value: .int(1))]
        }
        try await setup.waitForState("climate.thermostat") {
            $0.state == "heat" && $0.attributes["hvac_action"]?.string == "heating"
        }

        // The demo blind moves to its target in steps of 10 %; Home Assistant ends where it stops.
        skipping = bridge.writeRequests.count
        try await ha.callService("cover", "set_cover_position", ["entity_id": "cover.bedroom_blind", "position": 40])
        try await bridge.waitForRequest(skipping: skipping) {
            $0 == [.init(accessory: "Bedroom Blind", characteristic: "TargetPosition", value: .int(40))]
        }
        try await setup.waitForState("cover.bedroom_blind") {
            $0.state == "open" && $0.attributes["current_position"]?.number == 40
        }
        #expect(try await setup.number("Bedroom Blind", "CurrentPosition") == 40)

        // The fan is switched on at the device, then off from Home Assistant.
        try await bridge.setValue(accessory: "Fan", characteristic: "On", value: .bool(true))
        try await setup.waitForState("switch.fan") { $0.state == "on" }
        skipping = bridge.writeRequests.count
        try await ha.callService("switch", "turn_off", ["entity_id": "switch.fan"])
        try await bridge.waitForRequest(skipping: skipping) {
            $0 == [.init(accessory: "Fan", characteristic: "On", value: .bool(false))]
        }
        try await setup.waitForState("switch.fan") { $0.state == "off" }
    }

    /// Values changed at the accessory (a door opened, the humidity risen) reach Home Assistant's state.
    private func expectAccessoryChangesReachHomeAssistant(_ setup: HomeAssistantDemoSetup) async throws {
        try await setup.bridge.setValue(accessory: "Front Door", characteristic: "ContactSensorState", value: .int(1))
        try await setup.waitForState("binary_sensor.front_door") { $0.state == "on" }
        try await setup.bridge.setValue(
            accessory: "Room Humidity", characteristic: "CurrentRelativeHumidity", value: .float(61))
        try await setup.waitForState("sensor.room_humidity") { Double($0.state) == 61 }
        try await setup.bridge.setValue(
            accessory: "Hallway Motion", characteristic: "MotionDetected", value: .bool(true))
        try await setup.waitForState("binary_sensor.hallway_motion") { $0.state == "on" }
    }

    /// The bridge process killed: every entity of its accessories (and of the bridge) becomes unavailable.
    /// Started again on the same port and state: they come back with the values the fresh accessories
    /// hold, and work.
    private func expectAvailabilityFollowsTheBridgeProcess(_ setup: HomeAssistantDemoSetup) async throws {
        let ha = setup.homeAssistant
        var entities: [String] = []
        for device in Self.mainEntities.map(\.key) + ["hap2mqtt Demo Bridge"] {
            entities += try await ha.deviceEntities(named: device)
        }
        #expect(entities.count > 2 * Self.mainEntities.count, "\(entities)")
        await setup.bridge.kill()
        for entity in entities {
            try await setup.waitForState(entity, timeout: .seconds(30)) { $0.state == "unavailable" }
        }
        #expect(
            try await ha.state("binary_sensor.hap2mqtt_connection_state")?.state == "on",
            "the gateway itself stays connected")

        try await setup.bridge.start()
        for entity in entities {
            try await setup.waitForState(entity, timeout: .seconds(60)) { $0.state != "unavailable" }
        }
        // A fresh demo process starts from its defaults: the lamp off, the door closed, the blind closed.
        try await setup.waitForState("light.desk_lamp") { $0.state == "off" }
        try await setup.waitForState("binary_sensor.front_door") { $0.state == "off" }
        try await setup.waitForState("sensor.room_humidity") { Double($0.state) == 45 }
        try await setup.waitForState("cover.bedroom_blind") {
            $0.state == "closed" && $0.attributes["current_position"]?.number == 0
        }
        try await setup.waitForState("climate.thermostat") {
            $0.state == "off" && $0.attributes["temperature"]?.number == 21
        }

        let skipping = setup.bridge.writeRequests.count
        try await ha.callService("switch", "turn_on", ["entity_id": "switch.kettle"])
        try await setup.bridge.waitForRequest(skipping: skipping) {
            $0 == [.init(accessory: "Kettle", characteristic: "On", value: .bool(true))]
        }
        try await setup.waitForState("switch.kettle") { $0.state == "on" }
        try await setup.waitForState("binary_sensor.kettle_outlet_in_use") { $0.state == "on" }
    }

    private func onOff(_ value: CharacteristicValue?) -> String {
        value?.boolValue == true ? "on" : "off"
    }
}
