import Foundation
import Gateway
import HomeStore
import SystemSupport
import Testing

@testable import hap2mqtt

@Suite("The homeassistant section reaches the gateway")
struct HomeAssistantWiringTests {
    @Test("discovery, prefix, status topic, birth delay and exclusions come from the file")
    func wiring() throws {
        let files = try TemporaryFiles()
        defer { files.remove() }
        let yaml = """
            homeassistant:
              discovery: false
              prefix: ha
              status_topic: ha/status
              birth_delay_min: 2
              birth_delay_max: 3
              exclude_accessories: [kitchen_lamp, "AA:BB:CC:DD:EE:FF/2"]
              exclude_characteristics: [status_low_battery, hall/thermostat/current_temperature]
            """
        let loaded = try Configuration.load(path: files.write(yaml, to: "c.yaml"), environment: [:])
        let ha = loaded.configuration.homeAssistantConfiguration
        #expect(ha.discovery == false && ha.prefix == "ha" && ha.statusTopic == "ha/status")
        #expect(ha.birthDelay == .seconds(2)...(.seconds(3)))
        #expect(ha.excludedAccessories == ["kitchen_lamp", "AA:BB:CC:DD:EE:FF/2"])
        #expect(ha.excludedCharacteristics == ["status_low_battery", "hall/thermostat/current_temperature"])
        let gateway = loaded.configuration.gatewayConfiguration(stateDirectory: StateDirectory(path: files.path))
        #expect(gateway.homeAssistant == ha)
        #expect(gateway.snapshotInterval == .seconds(60), "a camera's snapshot every minute by default")
    }

    @Test("homekit.snapshot_interval reaches the gateway; 0 takes snapshots only when asked; a negative one is refused")
    func snapshotInterval() throws {
        let files = try TemporaryFiles()
        defer { files.remove() }
        for (text, interval) in [("15", Duration.seconds(15)), ("0", .zero), ("2.5", .milliseconds(2500))] {
            let loaded = try Configuration.load(
                path: files.write("homekit:\n  snapshot_interval: \(text)\n", to: "c.yaml"), environment: [:])
            #expect(
                loaded.configuration.gatewayConfiguration(stateDirectory: StateDirectory(path: files.path))
                    .snapshotInterval == interval)
        }
        #expect(throws: ConfigurationError.self) {
            try Configuration.load(
                path: files.write("homekit:\n  snapshot_interval: -1\n", to: "c.yaml"), environment: [:])
        }
    }
}

@Suite("The home section and accessory places reach the home store")
struct HomeWiringTests {
    @Test("the home's rooms in the order written, then rooms and homes accessories are placed in")
    func homesAndRooms() throws {
        let files = try TemporaryFiles()
        defer { files.remove() }
        let yaml = """
            home:
              name: Flat
              rooms: [Hall, Kitchen]
            homekit:
              accessories:
                "AA:BB:CC:DD:EE:FF/2": { room: Kitchen }
                "AA:BB:CC:DD:EE:FF/3": { room: Study }
                "AA:BB:CC:DD:EE:FF/4": { room: Porch, home: Cabin }
                "AA:BB:CC:DD:EE:FF/5": { name: Lamp }
            """
        let loaded = try Configuration.load(path: files.write(yaml, to: "c.yaml"), environment: [:])
        let homes = loaded.configuration.homeStoreConfiguration.homes
        #expect(homes.map(\.name) == ["Flat", "Cabin"])
        #expect(homes.first?.rooms.map(\.name) == ["Hall", "Kitchen", "Study"])
        #expect(homes.last?.rooms.map(\.name) == ["Porch"])
    }
}
