import Foundation
import Gateway
import HAP2MQTTTesting
import HomeModel
import HomeStore
import MQTT
import Testing

@Suite("Gateway: broker restarts")
struct GatewayRecoveryTests {
    @Test("after the broker restarts without persistence, the gateway is back online with all retained state, Home Assistant configs included, and takes commands")
    func brokerRestart() async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        let everything = ["hap2mqtt/#", "homeassistant/#"]
        let before = try await h.allRetained(under: everything)
        #expect(before["hap2mqtt/kitchen_lamp/lightbulb/on"] == "false")
        #expect(before.keys.filter { $0.hasPrefix("homeassistant/") }.count > 10)
        await h.broker.kill()
        try await h.broker.restart()
        try await waitUntil(timeout: .seconds(15)) {
            (try? await h.allRetained())?["hap2mqtt/bridge/state"] == #"{"state":"online"}"#
        }
        try await waitUntil(timeout: .seconds(10)) { (try? await h.allRetained(under: everything)) == before }
        // The observer's own subscription may take a moment to come back too.
        try await waitUntil(timeout: .seconds(10)) { h.observer.client.isConnected }
        try await Task.sleep(for: .milliseconds(300))
        let result = try await h.set("kitchen_lamp/lightbulb/on", "true")
        #expect(result.payloadString == #"{"status":"ok","value":true}"#)
        #expect(h.provider.writes.count == 1)
        await h.stop()
    }

    @Test("stop publishes bridge/state offline")
    func cleanStop() async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        await h.gateway.stop()
        try await waitUntil { (try? await h.observer.retained("hap2mqtt/bridge/state"))??.payloadString == #"{"state":"offline"}"# }
        await h.stop()
    }
}
