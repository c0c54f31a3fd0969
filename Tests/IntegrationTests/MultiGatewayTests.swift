import Foundation
import HAP2MQTTTesting
import MQTT
import Testing

/// Several gateways with distinct base topics: two on one broker and a third on a second broker joined to
/// the first by a mosquitto bridge, each paired with its own HAP-python bridge, all three with the same
/// pairing id, so that their accessories have the same ids (one accessory paired to several gateways
/// looks so). Real processes throughout.
@Suite("hap2mqtt run: several gateways on one broker and across a mosquitto bridge")
struct MultiGatewayTests {
    static let bases = ["hap2mqtt", "house2", "house3"]
    static let pairingID = "5A:1E:00:00:00:32"

    @Test(
        "each works alone: distinct claims, Home Assistant unique ids and devices that never collide, requests and commands reach only their own gateway"
    )
    func threeGateways() async throws {
        let first = try await MosquittoBroker()
        let second = try await MosquittoBroker(
            options: .init(extraConfiguration: [
                "connection to-first", "address 127.0.0.1:\(first.port)", "topic # both 1",
                "remote_clientid bridge-\(UUID().uuidString.prefix(8))", "cleansession true",
            ]))
        var accessories: [HAPPythonAccessory] = []
        var gateways: [GatewayProcess] = []
        for (number, base) in Self.bases.enumerated() {
            let accessory = try await HAPPythonAccessory.start(pairingID: Self.pairingID)
            let gateway = try GatewayProcess(brokerURL: number == 2 ? second.url : first.url, baseTopic: base)
            try await LiveGateway.pair(gateway, with: accessory)
            accessories.append(accessory)
            gateways.append(gateway)
        }
        // On the first broker: the third gateway's topics arrive over the bridge.
        let observer = try await MQTTTestClient.connect(
            to: first, subscribe: Self.bases.map { "\($0)/#" } + ["homeassistant/#"])
        for gateway in gateways { try gateway.start() }
        var instances: Set<String> = []
        for base in Self.bases {
            let online = try await observer.waitFor(topic: "\(base)/bridge/state", timeout: .seconds(90)) {
                $0.bridgeState == "online"
            }
            instances.insert(try #require(online.bridgeInstance))
            _ = try await observer.waitFor(topic: "\(base)/light/lightbulb/on", timeout: .seconds(60))
        }
        #expect(instances.count == 3, "each gateway claims its base topic as an instance of its own")

        // Home Assistant: every config's unique id once, and each gateway's devices its own.
        let configs = try await MQTTTestClient.retainedSnapshot(of: first, ["homeassistant/#"])
        var uniqueIDs: [String: Int] = [:]
        var devicesByBase: [String: Set<String>] = [:]
        for (topic, text) in configs {
            let config = try #require(
                try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(topic)")
            if let id = config["unique_id"] as? String { uniqueIDs[id, default: 0] += 1 }
            let availability = (config["availability"] as? [[String: Any]])?.first?["topic"] as? String
            let stateTopic = config["state_topic"] as? String
            let base = try #require(
                Self.bases.first {
                    availability?.hasPrefix("\($0)/") == true || stateTopic?.hasPrefix("\($0)/") == true
                }, "\(topic) belongs to no gateway")
            let identifiers = (config["device"] as? [String: Any])?["identifiers"] as? [String] ?? []
            devicesByBase[base, default: []].formUnion(identifiers)
        }
        #expect(uniqueIDs.values.allSatisfy { $0 == 1 }, "\(uniqueIDs.filter { $0.value > 1 })")
        #expect(devicesByBase.count == 3)
        for a in Self.bases {
            for b in Self.bases where a < b {
                #expect(devicesByBase[a, default: []].isDisjoint(with: devicesByBase[b, default: []]), "\(a) and \(b)")
            }
        }
        // The default base topic keeps the ids it always had.
        #expect(devicesByBase["hap2mqtt", default: []].contains("hap2mqtt_5a_1e_00_00_00_32_2"))
        #expect(devicesByBase["house2", default: []].contains("hap2mqtt_house2_5a_1e_00_00_00_32_2"))

        // A request reaches only its own gateway: each answers its own transaction, once, and no other.
        for base in Self.bases {
            try await observer.publish("\(base)/bridge/request/health_check", #"{"transaction":"\#(base)"}"#)
            _ = try await observer.waitFor(topic: "\(base)/bridge/response/health_check", timeout: .seconds(30))
        }
        for base in Self.bases {
            let answers = await observer.messages(on: "\(base)/bridge/response/health_check").map {
                $0.payloadString ?? ""
            }
            #expect(answers.count == 1 && answers[0].contains(#""transaction":"\#(base)""#), "\(base): \(answers)")
        }
        // A command reaches only its own gateway's accessory.
        try await observer.publish("house2/light/lightbulb/on/set", "true")
        _ = try await observer.waitFor(topic: "house2/light/lightbulb/on/set/result", timeout: .seconds(30))
        _ = try await accessories[1].waitForSetterCalls(count: 1)
        #expect(accessories[0].setterCalls.isEmpty && accessories[2].setterCalls.isEmpty)
        #expect(try await observer.retained("hap2mqtt/light/lightbulb/on")?.payloadString == "false")
        #expect(try await observer.retained("house2/light/lightbulb/on")?.payloadString == "true")

        // A config the second gateway left under the node id every base topic had before they were told
        // apart is cleared at its next start; the first gateway's configs, under the same node id, stay.
        let legacy = "homeassistant/switch/hap2mqtt_5a_1e_00_00_00_32_2/s99/config"
        try await observer.publish(
            legacy, #"{"name":"Old","unique_id":"old","availability":[{"topic":"house2/bridge/state"}]}"#, retain: true)
        _ = try await observer.waitFor(topic: legacy)
        let firstsConfigs = configs.filter { $0.key.contains("/hap2mqtt_5a_1e_00_00_00_32_") }
        #expect(!firstsConfigs.isEmpty)
        await gateways[1].stop()
        await observer.clear()
        try gateways[1].start()
        _ = try await observer.waitFor(topic: "house2/bridge/state", timeout: .seconds(90)) {
            $0.bridgeState == "online"
        }
        #expect(try await observer.retained(legacy) == nil, "\(gateways[1].log.suffix(2000))")
        let after = try await MQTTTestClient.retainedSnapshot(of: first, ["homeassistant/#"])
        for (topic, payload) in firstsConfigs { #expect(after[topic] == payload, "\(topic)") }

        for gateway in gateways {
            await gateway.stop()
            #expect(gateway.terminationStatus == 0, "\(gateway.log.suffix(2000))")
        }
        await observer.disconnect()
        for accessory in accessories { await accessory.stop() }
        await second.stop()
        await first.stop()
    }
}
