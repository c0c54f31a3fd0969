import Foundation
import Gateway
import HAP2MQTTTesting
import HomeModel
import HomeStore
import Logging
import MQTT
import SystemSupport

/// A gateway wired to a real mosquitto and the in-memory provider, with an observer client subscribed to
/// everything under the base topic.
final class GatewayHarness: Sendable {
    static let serverID = "00:00:00:00:00:01"
    let broker: MosquittoBroker
    let provider: InMemoryAccessoryProvider
    let store: HomeStore
    let mqtt: MQTTClient
    let gateway: Gateway
    let observer: MQTTTestClient
    /// Every log line of the gateway, the store and the gateway's MQTT client.
    let log = LogCapture()
    let runner: Task<Void, Never>
    let base = "hap2mqtt"

    /// A lamp (Lightbulb with colour), a lock and a thermostat, unless `accessories` says otherwise.
    static func defaultAccessories() -> [Accessory] {
        [
            InMemoryAccessoryProvider.accessory(aid: 2, name: "Kitchen Lamp", services: [.Service.lightbulb]),
            InMemoryAccessoryProvider.accessory(aid: 3, name: "Front Door", services: [.Service.lockMechanism]),
            InMemoryAccessoryProvider.accessory(aid: 4, name: "Hall Thermostat", services: [.Service.thermostat]),
            InMemoryAccessoryProvider.accessory(aid: 5, name: "Porch Button", services: [.Service.statelessProgrammableSwitch]),
        ]
    }

    init(
        accessories: [Accessory] = GatewayHarness.defaultAccessories(), autoSync: Bool = true,
        writeTimeout: Duration = .seconds(10), protocolVersion: MQTTProtocolVersion = .v5,
        stateDirectory: StateDirectory? = nil, broker existing: MosquittoBroker? = nil,
        homeAssistant: HomeAssistantConfiguration = HomeAssistantConfiguration(),
        homes: [Home] = [Home(name: "Home")]
    ) async throws {
        if let existing { broker = existing } else { broker = try await MosquittoBroker() }
        provider = InMemoryAccessoryProvider(serverID: GatewayHarness.serverID, accessories: accessories, autoSync: autoSync)
        var storeConfiguration = HomeStoreConfiguration()
        storeConfiguration.writeTimeout = writeTimeout
        storeConfiguration.homes = homes
        store = HomeStore(configuration: storeConfiguration, logger: log.logger(label: "homestore"))
        await store.add(provider)
        observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/#"]) { $0.protocolVersion = protocolVersion }
        var configuration = MQTTConfiguration(url: broker.url, clientID: "gateway-\(UUID().uuidString.prefix(6))")
        configuration.protocolVersion = protocolVersion
        configuration.will = Gateway.lastWill(baseTopic: "hap2mqtt")
        configuration.reconnectDelay = (.milliseconds(100), .milliseconds(500))
        mqtt = try MQTTClient(configuration: configuration, logger: log.logger(label: "mqtt"))
        try await mqtt.connect()
        gateway = Gateway(
            configuration: GatewayConfiguration(
                version: "test", stateDirectory: stateDirectory, mqttSummary: ["url": broker.url], homeAssistant: homeAssistant),
            store: store, mqtt: mqtt, logger: log.logger(label: "gateway"))
        await store.start()
        let gateway = self.gateway
        runner = Task { await gateway.run() }
    }

    /// Waits until the gateway announced itself online.
    func waitUntilOnline() async throws {
        _ = try await observer.waitFor(topic: "hap2mqtt/bridge/state") { $0.payloadString == #"{"state":"online"}"# }
        _ = try await observer.waitFor(topic: "hap2mqtt/bridge/accessories")
    }

    func address(aid: Int, _ type: HAPType) -> CharacteristicAddress {
        let accessory = provider.accessories.first { $0.aid == aid }!
        let c = accessory.services.flatMap(\.characteristics).first { $0.type == type }!
        return CharacteristicAddress(accessory: AccessoryID(serverID: GatewayHarness.serverID, aid: aid), iid: c.iid)
    }

    /// Publishes a command (not retained) and waits for its result on `…/set/result`.
    func set(_ topic: String, _ payload: String) async throws -> MQTTMessage {
        await observer.clear()
        try await observer.publish("\(base)/\(topic)/set", payload)
        return try await observer.waitFor(topic: "\(base)/\(topic)/set/result")
    }

    func stop() async {
        await gateway.stop()
        runner.cancel()
        await mqtt.disconnect()
        await observer.disconnect()
        await store.stop()
        await broker.stop()
    }
}

/// The JSON object of a message's payload.
func jsonObject(_ message: MQTTMessage) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(message.payload))) as? [String: Any]
}
