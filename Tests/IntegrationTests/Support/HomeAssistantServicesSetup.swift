import Foundation
import HAP2MQTTTesting
import HomeAssistantTesting
import HomeModel
import MQTT
import Testing

/// Everything real for the Home Assistant service tests, on loopback: a mosquitto, Home Assistant
/// (`HomeAssistantVersion.current`) started FIRST (so it sees every discovery message as the gateway
/// publishes it, as on a first install),
/// the HAP-python bridge with the `homeassistant` profile (one accessory per service type Home Assistant
/// controls), and the real `hap2mqtt` binary paired with it, taking a camera snapshot every 5 s.
///
/// One set-up serves the whole suite (`Scope`): Home Assistant takes about ten seconds to start.
struct HomeAssistantServicesSetup: Sendable {
    let broker: MosquittoBroker
    let homeAssistant: HomeAssistant
    let bridge: HAPPythonAccessory
    let gateway: GatewayProcess
    /// Subscribed to `hap2mqtt/#` and `homeassistant/#` before the gateway started.
    let observer: MQTTTestClient

    /// Seconds between the gateway's snapshots of the camera.
    static let snapshotInterval = 5

    /// Starts everything, runs `body`, and stops everything again, also when a start or `body` throws;
    /// the gateway must exit cleanly.
    static func with(_ body: (HomeAssistantServicesSetup) async throws -> Void) async throws {
        try await Teardown.around { teardown in
            let broker = try await MosquittoBroker()
            teardown.add { await broker.stop() }
            let homeAssistant = try await HomeAssistant.start(brokerPort: broker.port)
            teardown.add { await homeAssistant.stop() }
            let bridge = try await HAPPythonAccessory.start(profile: .homeAssistant)
            teardown.add { await bridge.stop() }
            let gateway = try GatewayProcess(
                brokerURL: broker.url,
                environment: HomeAssistantVersion.current.gatewayEnvironment.merging([
                    "HAP2MQTT_HOMEKIT_SNAPSHOT_INTERVAL": String(snapshotInterval)
                ]) { _, given in given })
            teardown.add(gateway)
            try await LiveGateway.pair(gateway, port: bridge.port, code: bridge.setupCode)
            let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/#", "homeassistant/#"])
            teardown.add { await observer.disconnect() }
            try gateway.start()
            let online = await observer.firstMessage(on: "hap2mqtt/bridge/state", within: .seconds(60)) {
                $0.bridgeState == "online"
            }
            try #require(online != nil, "hap2mqtt did not come online:\n\(gateway.log.suffix(3000))")
            try await body(
                HomeAssistantServicesSetup(
                    broker: broker, homeAssistant: homeAssistant, bridge: bridge, gateway: gateway, observer: observer))
        }
    }

    /// Runs a suite's tests inside one set-up (a suite trait: `@Suite(HomeAssistantServicesSetup.Scope())`);
    /// each test reads it from `current`. Home Assistant's log must stay free of problems.
    struct Scope: SuiteTrait, TestScoping {
        @TaskLocal static var current: HomeAssistantServicesSetup?

        func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void)
            async throws
        {
            try await HomeAssistantServicesSetup.with { setup in
                try await Scope.$current.withValue(setup) { try await function() }
                try await setup.homeAssistant.expectNoProblems()
            }
        }
    }

    /// The suite's set-up.
    static func current() throws -> HomeAssistantServicesSetup {
        try #require(Scope.current, "the suite runs without HomeAssistantServicesSetup.Scope")
    }

    /// Waits until Home Assistant shows `entityID` in a state for which `predicate` holds.
    /// - Throws: the time-out with the last state seen and the end of the gateway's log.
    @discardableResult
    func waitForState(
        _ entityID: String, timeout: Duration = .seconds(30),
        where predicate: (HomeAssistantState) -> Bool = { $0.state != "unavailable" }
    ) async throws -> HomeAssistantState {
        do {
            return try await homeAssistant.waitForState(entityID, timeout: timeout, where: predicate)
        } catch {
            throw TestSupportError.timedOut("\(error)\n--- hap2mqtt ---\n\(gateway.log.suffix(2500))")
        }
    }

    /// Calls a Home Assistant service and waits until the accessory's setter of `characteristic` ran
    /// with a value for which `value` holds (the accessory's own record of the write); returns that call.
    @discardableResult
    func call(
        _ domain: String, _ service: String, _ data: [String: any Sendable], expecting accessory: String,
        _ characteristic: String,
        where value: @escaping (CharacteristicValue?) -> Bool
    ) async throws -> HAPPythonAccessory.SetterCall {
        let skipping = bridge.setterCalls.count
        try await homeAssistant.callService(domain, service, data)
        return try await setterCall(after: skipping, accessory, characteristic, where: value)
    }

    /// Waits for a setter call of `characteristic` after the first `skipping` calls.
    @discardableResult
    func setterCall(
        after skipping: Int, _ accessory: String, _ characteristic: String,
        where value: @escaping (CharacteristicValue?) -> Bool
    ) async throws -> HAPPythonAccessory.SetterCall {
        var found: HAPPythonAccessory.SetterCall?
        do {
            try await eventually("\(accessory) \(characteristic) to be written", timeout: .seconds(20)) {
                found = bridge.setterCalls.dropFirst(skipping).first {
                    $0.accessory == accessory && $0.characteristic == characteristic && value($0.value)
                }
                return found != nil
            }
        } catch {
            throw TestSupportError.timedOut(
                "\(error); the accessory recorded \(bridge.setterCalls.dropFirst(skipping))\n--- hap2mqtt ---\n\(gateway.log.suffix(2500))"
            )
        }
        return try #require(found)
    }

    /// The number `attribute` of an entity's state.
    func number(_ state: HomeAssistantState, _ attribute: String) -> Double? { state.attributes[attribute]?.number }
}

extension CharacteristicValue {
    /// Whether the value is the number `expected` (an int, a uint or a float alike).
    func isNumber(_ expected: Double) -> Bool { doubleValue == expected }
}
