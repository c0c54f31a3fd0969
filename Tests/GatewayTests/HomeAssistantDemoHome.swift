import Foundation
import Gateway
import HAP2MQTTTesting
import HomeAssistantTesting
import HomeModel
import HomeStore
import MQTT

/// The demo home of the Home Assistant tests: one accessory per common service type, with realistic
/// starting values, and the gateway + mosquitto + a real Home Assistant around it.
final class HomeAssistantDemoHome: Stoppable {
    let gateway: BrokerGatewayHarness
    let homeAssistant: HomeAssistant

    /// aid, name, service type, and values by characteristic type.
    static let accessories: [(aid: Int, name: String, service: HAPType, values: [String: CharacteristicValue])] = [
        (
            2, "Kitchen Lamp", .Service.lightbulb,
            ["25": .bool(true), "8": .int(50), "13": .float(120), "2F": .float(80), "CE": .int(300)]
        ),
        (3, "Desk Switch", .Service.switch, ["25": .bool(true)]),
        (4, "Coffee Outlet", .Service.outlet, ["25": .bool(false), "26": .bool(true)]),
        (5, "Living Temperature", .Service.temperatureSensor, ["11": .float(21.5)]),
        (6, "Bath Humidity", .Service.humiditySensor, ["10": .float(55)]),
        (7, "Window Contact", .Service.contactSensor, ["6A": .int(1)]),
        (8, "Hall Motion", .Service.motionSensor, ["22": .bool(true)]),
        (9, "Front Door", .Service.lockMechanism, ["1D": .int(0), "1E": .int(0)]),
        (
            10, "Hall Thermostat", .Service.thermostat,
            ["F": .int(1), "33": .int(1), "11": .float(19.5), "35": .float(21), "12": .float(18), "D": .float(26)]
        ),
        (11, "Bedroom Blind", .Service.windowCovering, ["6D": .int(100), "7C": .int(100), "72": .int(2)]),
        (12, "Porch Button", .Service.statelessProgrammableSwitch, [:]),
    ]

    static func id(_ aid: Int) -> AccessoryID { GatewayFixture.id(aid) }

    /// The demo accessories built from the catalog, with the values above.
    static func build() -> [Accessory] {
        accessories.map { entry in
            var accessory = InMemoryAccessoryProvider.accessory(
                aid: entry.aid, name: entry.name, services: [entry.service])
            for s in accessory.services.indices {
                for c in accessory.services[s].characteristics.indices {
                    let type = accessory.services[s].characteristics[c].type.shortForm
                    if accessory.services[s].type == entry.service, let value = entry.values[type] {
                        accessory.services[s].characteristics[c].value = value
                    }
                }
            }
            return accessory
        }
    }

    init(
        accessories: [Accessory] = HomeAssistantDemoHome.build(),
        homeAssistant configuration: HomeAssistantConfiguration = HomeAssistantConfiguration(
            birthDelay: .milliseconds(100)...(.milliseconds(300)),
            format: DiscoveryFormat(rawValue: HomeAssistantVersion.current.discoveryFormat))
    ) async throws {
        gateway = try await BrokerGatewayHarness(accessories: accessories, homeAssistant: configuration)
        try await gateway.waitUntilOnline()
        do {
            homeAssistant = try await HomeAssistant.start(
                brokerPort: gateway.broker.port, discoveryPrefix: configuration.prefix)
        } catch {
            await gateway.stop()
            throw error
        }
    }

    /// Runs `body` with a started demo home and stops everything afterwards, also when `body` throws.
    static func with(accessories: [Accessory] = build(), _ body: (HomeAssistantDemoHome) async throws -> Void)
        async throws
    {
        try await withStopping(try await HomeAssistantDemoHome(accessories: accessories), body)
    }

    /// As `with(accessories:_:)`, with the discovery configs in `format`.
    static func with(format: DiscoveryFormat, _ body: (HomeAssistantDemoHome) async throws -> Void) async throws {
        let configuration = HomeAssistantConfiguration(
            birthDelay: .milliseconds(100)...(.milliseconds(300)), format: format)
        try await withStopping(try await HomeAssistantDemoHome(homeAssistant: configuration), body)
    }

    func stop() async {
        await homeAssistant.stop()
        await gateway.stop()
    }

    /// The address of the characteristic of `type` (short form) in accessory `aid`.
    func address(_ aid: Int, _ type: String) -> CharacteristicAddress {
        gateway.address(aid: aid, HAPType(type)!)
    }

    /// Waits until the provider received a write request that satisfies `predicate`.
    func waitForWrite(timeout: Duration = .seconds(20), where predicate: ([CharacteristicWrite]) -> Bool) async throws
        -> [CharacteristicWrite]
    {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let match = gateway.provider.writes.first(where: predicate) { return match }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestSupportError.timedOut("no matching write; the provider received: \(gateway.provider.writes)")
    }
}
