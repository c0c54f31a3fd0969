import Foundation
import Gateway
import HAP2MQTTTesting
import HomeModel
import HomeStore
import MQTT
import Testing

@Suite("Gateway: a real broker that restarts or loses the gateway")
struct GatewayRecoveryTests {
    @Test("after the broker restarts without persistence, the gateway is back online with all retained state, Home Assistant configs included, and takes commands")
    func brokerRestart() async throws {
        try await withBrokerGatewayHarness { h in
            try await h.waitUntilOnline()
            let everything = ["hap2mqtt/#", "homeassistant/#"]
            let before = try await h.allRetained(under: everything)
            #expect(before["hap2mqtt/kitchen_lamp/lightbulb/on"] == "false")
            #expect(before.keys.filter { $0.hasPrefix("homeassistant/") }.count > 10)
            await h.broker.kill()
            try await h.broker.restart()
            try await eventually("online again", timeout: .seconds(15)) {
                (try? await h.allRetained())?["hap2mqtt/bridge/state"] == #"{"state":"online"}"#
            }
            try await eventually("everything retained again") { (try? await h.allRetained(under: everything)) == before }
            // The observer's own subscription may take a moment to come back too.
            try await eventually("the observer is back") { h.observer.client.isConnected }
            try await h.observer.waitForEvent { $0 == .connected(reconnect: true) }
            let result = try await h.set("kitchen_lamp/lightbulb/on", "true")
            #expect(result.payloadString == #"{"status":"ok","value":true}"#)
            #expect(h.provider.writes.count == 1)
        }
    }

    @Test("stop publishes bridge/state offline, acknowledged by the broker")
    func cleanStop() async throws {
        try await withBrokerGatewayHarness { h in
            try await h.waitUntilOnline()
            await h.gateway.stop()
            #expect(try await h.observer.retained("hap2mqtt/bridge/state")?.payloadString == #"{"state":"offline"}"#)
        }
    }
}

extension BrokerGatewayHarness {
    /// Every retained message under the filters, read by a fresh client: topic → payload.
    func allRetained(under filters: [String] = ["hap2mqtt/#"]) async throws -> [String: String] {
        let probe = try await MQTTTestClient.connect(to: broker, subscribe: [])
        let marker = "hap2mqtt-test/marker/\(UUID().uuidString)"
        do {
            try await probe.subscribe(filters + [marker])
            try await probe.publish(marker, "marker")
            _ = try await probe.waitFor(topic: marker)
        } catch {
            await probe.disconnect()
            throw error
        }
        var out: [String: String] = [:]
        for m in await probe.allMessages where m.retain && m.topic != marker { out[m.topic] = m.payloadString }
        await probe.disconnect()
        return out
    }
}
