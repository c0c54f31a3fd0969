import Foundation
import Gateway
import HAP2MQTTTesting
import HAPController
import HomeModel
import JSON
import Testing

/// Real devices end to end: HAP-python serves the accessory databases of devices of five vendors from the
/// corpus (`Tests/Fixtures/devices`, `hap_fixture.py --device`), and of four that hide vendor services, the
/// real `hap2mqtt run` pairs with each over HAP and publishes to a real broker, and the Home Assistant
/// discovery configs it retains for each accessory must be those the in-process corpus test makes of the
/// same database (`DeviceCorpusTests`): the same entities, on the same platforms, with the same device
/// class, unit, state class and category. `HAP2MQTT_TEST_CORPUS=all` serves every device of the corpus
/// (some 40 HAP-python processes at once) but ConnectSense, whose energy value HAP-python cannot send (it
/// is beyond 64 bits).
@Suite("Real devices served by HAP-python and paired with hap2mqtt", .serialized)
struct DeviceCorpusLiveTests {
    static let devices: [String] = {
        guard ProcessInfo.processInfo.environment["HAP2MQTT_TEST_CORPUS"] == "all" else {
            return [
                "eve_energy", "ecobee3", "hue_bridge", "nanoleaf_bulb", "velux_gateway", "eve_degree", "koogeek_sw2",
                "vocolinc_vp3", "aqara_gateway",
            ]
        }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: DeviceCorpusTests.directory.path)) ?? []
        return files.filter { $0.hasSuffix(".json") && $0 != "connectsense.json" }.map { String($0.dropLast(5)) }
            .sorted()
    }()

    /// What is compared of an entity: where its config is, and what Home Assistant makes of it.
    struct Entity: Hashable, CustomStringConvertible {
        var topic: String
        var facts: [String]
        var description: String { "\(topic) \(facts)" }

        init(topic: String, payload: JSONValue) {
            self.topic = topic
            facts = ["device_class", "unit_of_measurement", "state_class", "entity_category", "enabled_by_default"]
                .map { "\($0)=\(payload[$0]?.description ?? "-")" }
        }
    }

    @Test(
        "the Home Assistant entities of Eve Energy, ecobee3, a Hue bridge, a Nanoleaf bulb, a Velux gateway and devices with hidden services are the corpus test's"
    )
    func entitiesOfRealDevices() async throws {
        let broker = try await MosquittoBroker()
        let gateway = try GatewayProcess(brokerURL: broker.url)
        var accessories: [HAPPythonAccessory] = []
        var expected: [String: Set<Entity>] = [:]
        let discovery = HomeAssistantDiscovery(
            configuration: HomeAssistantConfiguration(), topics: TopicScheme(base: "hap2mqtt"), version: "test")
        for device in Self.devices {
            let file = DeviceCorpusTests.directory.appendingPathComponent("\(device).json")
            let accessory = try await HAPPythonAccessory.start(device: file.path)
            accessories.append(accessory)
            let serverID = try await accessory.status().pairingID
            try gateway.start([
                "pair", "--host", "127.0.0.1", "--port", String(accessory.port), "--code", accessory.setupCode,
            ])
            try await eventually("hap2mqtt pair \(device)", timeout: .seconds(60)) { !gateway.isRunning }
            try #require(gateway.terminationStatus == 0, "pairing \(device) failed:\n\(gateway.log.suffix(2000))")
            let json = try JSONValue(parsing: [UInt8](Data(contentsOf: file)))
            let list = try HAPAccessoryList(
                json: ["accessories": json["accessories"] ?? .array([])], serverID: serverID)
            var entities = Set<Entity>()
            for accessory in list.accessories {
                let layout = AccessoryLayout(accessory: accessory, slug: "a\(accessory.aid)", topics: discovery.topics)
                for config in discovery.configs(for: accessory, layout: layout, applyingExclusions: true) {
                    entities.insert(Entity(topic: config.topic, payload: config.payload))
                }
            }
            expected[device] = entities
        }

        let observer = try await MQTTTestClient.connect(
            to: broker, subscribe: ["homeassistant/#", "hap2mqtt/bridge/#"])
        try gateway.start()
        let total = expected.values.reduce(0) { $0 + $1.count }
        var published: [String: JSONValue] = [:]
        try await eventually("hap2mqtt retains the discovery configs of every device", timeout: .seconds(180)) {
            published = [:]
            for message in await observer.messages(on: "homeassistant/+/+/+/config") where !message.payload.isEmpty {
                published[message.topic] = try? JSONValue(parsing: message.payload)
            }
            let wanted = Set(expected.values.flatMap { $0.map(\.topic) })
            return wanted.isSubset(of: published.keys) || published.count > total + 50
        }
        for device in Self.devices {
            let want = expected[device] ?? []
            let topics = Set(want.map(\.topic))
            // This device's nodes: every config under one of its accessories' node ids.
            let nodes = Set(topics.map { $0.split(separator: "/")[2] })
            let got = Set(
                published.filter { nodes.contains($0.key.split(separator: "/")[2]) }.map {
                    Entity(topic: $0.key, payload: $0.value)
                })
            #expect(!want.isEmpty, "\(device): the corpus test expects entities")
            #expect(
                got == want,
                "\(device): missing \(want.subtracting(got).sorted { $0.topic < $1.topic }); extra \(got.subtracting(want).sorted { $0.topic < $1.topic })"
            )
        }
        await gateway.stop()
        await observer.disconnect()
        for accessory in accessories { await accessory.stop() }
        await broker.stop()
    }
}
