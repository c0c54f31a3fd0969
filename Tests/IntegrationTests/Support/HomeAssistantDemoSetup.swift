import Foundation
import HAP2MQTTTesting
import HomeAssistantTesting
import HomeModel
import MQTT
import Testing

/// The set-up docs/home-assistant.md describes, every part real and on loopback: a mosquitto, the demo bridge of
/// `scripts/demo`, the real `hap2mqtt` binary paired with it (`hap2mqtt pair`, into its own state directory)
/// and running with the default `homeassistant` settings, and Home Assistant
/// (`HomeAssistantVersion.current`) with its MQTT integration on the same broker.
struct HomeAssistantDemoSetup {
    let broker: MosquittoBroker
    let bridge: DemoBridge
    let gateway: GatewayProcess
    let homeAssistant: HomeAssistant

    /// Starts everything, runs `body`, and stops everything again, also when a start or `body` throws;
    /// the gateway must exit cleanly (status 0).
    static func with(_ body: (HomeAssistantDemoSetup) async throws -> Void) async throws {
        try await Teardown.around { teardown in
            let broker = try await MosquittoBroker()
            teardown.add { await broker.stop() }
            let bridge = try await DemoBridge.start()
            teardown.add { await bridge.stop() }
            let gateway = try GatewayProcess(
                brokerURL: broker.url, environment: HomeAssistantVersion.current.gatewayEnvironment)
            teardown.add(gateway)
            try await LiveGateway.pair(gateway, port: bridge.port, code: try bridge.setupCode())
            let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/bridge/state"])
            try gateway.start()
            let online = await observer.firstMessage(on: "hap2mqtt/bridge/state", within: .seconds(30)) {
                $0.bridgeState == "online"
            }
            await observer.disconnect()
            try #require(online != nil, "hap2mqtt did not come online:\n\(gateway.log.suffix(3000))")
            let homeAssistant = try await HomeAssistant.start(brokerPort: broker.port)
            teardown.add { await homeAssistant.stop() }
            try await body(
                HomeAssistantDemoSetup(broker: broker, bridge: bridge, gateway: gateway, homeAssistant: homeAssistant))
        }
    }

    /// Waits until Home Assistant shows `entityID` in a state for which `predicate` holds.
    /// - Throws: the time-out with the last state seen and the ends of the gateway's and the bridge's logs.
    @discardableResult
    func waitForState(
        _ entityID: String, timeout: Duration = .seconds(20), where predicate: (HomeAssistantState) -> Bool
    ) async throws -> HomeAssistantState {
        do {
            return try await homeAssistant.waitForState(entityID, timeout: timeout, where: predicate)
        } catch {
            throw TestSupportError.timedOut(
                "\(error)\n--- hap2mqtt ---\n\(gateway.log.suffix(2000))\n--- demo bridge ---\n\(bridge.log.suffix(1500))"
            )
        }
    }

    /// The value the demo bridge's accessory holds now, as a number.
    func number(_ accessory: String, _ characteristic: String) async throws -> Double {
        try #require(
            try await bridge.value(accessory: accessory, characteristic: characteristic)?.doubleValue,
            "\(accessory) \(characteristic)")
    }
}
