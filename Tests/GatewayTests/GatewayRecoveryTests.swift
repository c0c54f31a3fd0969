import Foundation
import Gateway
import HAP2MQTTTesting
import HomeModel
import HomeStore
import MQTT
import Testing

@Suite("Gateway: a real broker that restarts or loses the gateway")
struct GatewayRecoveryTests {
    @Test(
        "after the broker restarts without persistence, the gateway is back online with all retained state, Home Assistant configs included, and takes commands"
    )
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
            try await eventually("everything retained again") {
                (try? await h.allRetained(under: everything)) == before
            }
            // The observer's own subscription may take a moment to come back too.
            try await eventually("the observer is back") { h.observer.client.isConnected }
            try await h.observer.waitForEvent { $0 == .connected(reconnect: true) }
            let result = try await h.set("kitchen_lamp/lightbulb/on", "true")
            #expect(result.payloadString == #"{"status":"ok","value":true}"#)
            #expect(h.provider.writes.count == 1)
        }
    }

    @Test(
        "QoS 1 commands sent while the broker restarts 10 times are all carried out: the persistent session keeps them")
    func commandsAcrossRestarts() async throws {
        try await withBrokerGatewayHarness(brokerOptions: .init(persistent: true), sessionExpiry: .seconds(60)) { h in
            try await h.waitUntilOnline()
            // The answers come back on an MQTT 5 response topic, to a client whose session keeps them too.
            let answers = try await MQTTTestClient.connect(to: h.broker.url, subscribe: ["hap2mqtt/response/#"]) {
                $0.sessionExpiry = .seconds(60)
            }
            let commander = try await MQTTTestClient.connect(to: h.broker.url, subscribe: [])
            let publisher = NumberedPublisher(client: commander.client) { n in
                MQTTMessage(
                    topic: "hap2mqtt/kitchen_lamp/lightbulb/brightness/set", string: "\(n % 100)", qos: .atLeastOnce,
                    properties: MQTTProperties(
                        responseTopic: "hap2mqtt/response/recovery", correlationData: Array("\(n)".utf8)))
            }
            publisher.start()
            for restart in 1...10 {
                let before = publisher.accepted.count
                try await eventually("more commands are accepted before restart \(restart)") {
                    publisher.accepted.count >= before + 3
                }
                try await h.broker.restart()
            }
            try await eventually("commands are accepted after the last restart") { publisher.accepted.count >= 40 }
            await publisher.stop()
            let accepted = publisher.accepted
            func answered() async -> Set<Int> {
                Set(
                    await answers.messages(on: "hap2mqtt/response/recovery").compactMap {
                        $0.properties.correlationData.flatMap { Int(String(decoding: $0, as: UTF8.self)) }
                    })
            }
            try await eventually(
                "every accepted command is answered (\(accepted.count) accepted)", timeout: .seconds(60)
            ) {
                await answered().isSuperset(of: accepted)
            }
            #expect(
                await answers.messages(on: "hap2mqtt/response/recovery").allSatisfy {
                    $0.payloadString?.contains(#""status":"ok""#) == true
                })
            await commander.disconnect()
            await answers.disconnect()
        }
    }

    @Test("a retained /set sent while the gateway reconnects with its persistent session is still ignored")
    func retainedCommandAfterRestart() async throws {
        try await withBrokerGatewayHarness(brokerOptions: .init(persistent: true), sessionExpiry: .seconds(60)) { h in
            try await h.waitUntilOnline()
            try await h.broker.restart()
            let commander = try await MQTTTestClient.connect(to: h.broker.url, subscribe: [])
            try await commander.publish("hap2mqtt/kitchen_lamp/lightbulb/brightness/set", "33", retain: true)
            try await commander.publish("hap2mqtt/kitchen_lamp/lightbulb/on/set", "true")
            try await eventually("the plain command is carried out") { h.provider.writes.count == 1 }
            _ = try await h.log.waitFor(.warning, containing: "ignored a retained command")
            #expect(h.provider.writes.flatMap { $0 }.map(\.value) == [.bool(true)])
            // The gateway clears it from the broker, so no later connection meets it again.
            try await eventually("the retained command cleared") {
                try await h.observer.retained("hap2mqtt/kitchen_lamp/lightbulb/brightness/set") == nil
            }
            await commander.disconnect()
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
