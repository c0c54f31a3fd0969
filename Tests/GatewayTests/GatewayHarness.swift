import Foundation
import Gateway
import HAP2MQTTTesting
import HomeModel
import HomeStore
import Logging
import MQTT
import SystemSupport

/// The accessories and addresses the Gateway tests share.
enum GatewayFixture {
    static let serverID = "00:00:00:00:00:01"

    /// A lamp (Lightbulb with colour), a lock, a thermostat and a button.
    static func accessories() -> [Accessory] {
        [
            InMemoryAccessoryProvider.accessory(aid: 2, name: "Kitchen Lamp", services: [.Service.lightbulb]),
            InMemoryAccessoryProvider.accessory(aid: 3, name: "Front Door", services: [.Service.lockMechanism]),
            InMemoryAccessoryProvider.accessory(aid: 4, name: "Hall Thermostat", services: [.Service.thermostat]),
            InMemoryAccessoryProvider.accessory(
                aid: 5, name: "Porch Button", services: [.Service.statelessProgrammableSwitch]),
        ]
    }

    static func id(_ aid: Int) -> AccessoryID { AccessoryID(serverID: serverID, aid: aid) }

    /// Home Assistant's defaults with per-entity configs, which most Gateway tests read; a harness without
    /// a state directory is a new installation, which would publish device-based ones
    /// (`DiscoveryMigrationGatewayTests` and `DeviceDiscoveryTests` test those).
    static let perEntity = HomeAssistantConfiguration(format: .entity)

    /// The address of the first characteristic of `type` in the provider's accessory `aid`.
    static func address(_ provider: InMemoryAccessoryProvider, aid: Int, _ type: HAPType) -> CharacteristicAddress {
        let accessory = provider.accessories.first { $0.aid == aid }!
        let c = accessory.services.flatMap(\.characteristics).first { $0.type == type }!
        return CharacteristicAddress(accessory: id(aid), iid: c.iid)
    }

    /// A store, not started yet, on an in-memory provider with these accessories, logging to `log`.
    static func store(
        _ accessories: [Accessory], autoSync: Bool, writeTimeout: Duration, homes: [Home], log: LogCapture
    ) async -> (InMemoryAccessoryProvider, HomeStore) {
        let provider = InMemoryAccessoryProvider(serverID: serverID, accessories: accessories, autoSync: autoSync)
        var configuration = HomeStoreConfiguration()
        configuration.writeTimeout = writeTimeout
        configuration.homes = homes
        let store = HomeStore(configuration: configuration, logger: log.logger(label: "homestore"))
        await store.add(provider)
        return (provider, store)
    }
}

/// A gateway on the in-memory provider and a recording MQTT client, without a broker: what it publishes
/// is checked exactly, and "nothing was published" right after the gateway handled a message
/// (`send(_:_:)` returns then). Made and always stopped by `withGatewayHarness`.
final class GatewayHarness: Stoppable {
    let provider: InMemoryAccessoryProvider
    let store: HomeStore
    let mqtt: RecordingMQTTClient
    let gateway: Gateway
    /// Every log line of the gateway and the store.
    let log = LogCapture()
    let runner: Task<Void, Never>
    let base = "hap2mqtt"

    fileprivate init(
        accessories: [Accessory], autoSync: Bool, writeTimeout: Duration, stateDirectory: StateDirectory?,
        homeAssistant: HomeAssistantConfiguration, homes: [Home], management: Management?, logging: BridgeLogging?,
        moreProviders: [InMemoryAccessoryProvider], responseTopics: [String]?
    ) async {
        (provider, store) = await GatewayFixture.store(
            accessories, autoSync: autoSync, writeTimeout: writeTimeout, homes: homes, log: log)
        for other in moreProviders { await store.add(other) }
        mqtt = RecordingMQTTClient()
        gateway = Gateway(
            configuration: GatewayConfiguration(
                version: "test", stateDirectory: stateDirectory, mqttSummary: ["url": "mqtt://127.0.0.1:1883"],
                homeAssistant: homeAssistant, responseTopics: responseTopics),
            store: store, mqtt: mqtt, management: management, logging: logging, logger: log.logger(label: "gateway"))
        await management?.attach(gateway)
        await store.start()
        let gateway = self.gateway
        runner = Task { await gateway.run() }
    }

    /// Waits until the gateway announced itself online and takes commands.
    func waitUntilOnline() async throws {
        try await mqtt.waitFor(topic: "hap2mqtt/bridge/state") { $0.payloadString == #"{"state":"online"}"# }
        await mqtt.drained()
    }

    func address(aid: Int, _ type: HAPType) -> CharacteristicAddress {
        GatewayFixture.address(provider, aid: aid, type)
    }

    /// Delivers a message as the broker would forward it (QoS 1) and returns when the gateway has handled
    /// it: what it published without waiting for an accessory is recorded by then.
    func send(
        _ topic: String, _ payload: String, retain: Bool = false, properties: MQTTProperties = MQTTProperties()
    ) async throws {
        try mqtt.deliver(topic, payload, retain: retain, properties: properties)
        await mqtt.drained()
    }

    /// Publishes a command to `<base>/<topic>/set` and waits for its result on `…/set/result`.
    func set(_ topic: String, _ payload: String, properties: MQTTProperties = MQTTProperties()) async throws
        -> MQTTMessage
    {
        let mark = mqtt.published.count
        try await send("\(base)/\(topic)/set", payload, properties: properties)
        return try await waitFor(topic: "\(base)/\(topic)/set/result", after: mark)
    }

    /// The first message on a topic matching `filter` published after the first `mark` messages.
    @discardableResult
    func waitFor(
        topic filter: String, after mark: Int, where predicate: @escaping (MQTTMessage) -> Bool = { _ in true }
    ) async throws -> MQTTMessage {
        try await mqtt.waitFor(topic: filter, after: mark, where: predicate)
    }

    func stop() async {
        await gateway.stop()
        runner.cancel()
        mqtt.finish()
        await store.stop()
    }
}

/// Runs `body` with a gateway on a recording MQTT client (see `GatewayHarness`) and stops it afterwards,
/// also when `body` throws.
/// - Parameters:
///   - accessories: what the in-memory provider holds; the lamp, lock, thermostat and button by default.
///   - autoSync: false keeps the store from becoming ready until `provider.completeSync()`.
///   - moreProviders: accessory servers besides `provider`'s, added to the store before it starts.
func withGatewayHarness(
    accessories: [Accessory] = GatewayFixture.accessories(), autoSync: Bool = true,
    writeTimeout: Duration = .seconds(10),
    stateDirectory: StateDirectory? = nil, homeAssistant: HomeAssistantConfiguration = GatewayFixture.perEntity,
    homes: [Home] = [Home(name: "Home")], management: Management? = nil, logging: BridgeLogging? = nil,
    moreProviders: [InMemoryAccessoryProvider] = [], responseTopics: [String]? = nil,
    _ body: (GatewayHarness) async throws -> Void
) async throws {
    let harness = await GatewayHarness(
        accessories: accessories, autoSync: autoSync, writeTimeout: writeTimeout, stateDirectory: stateDirectory,
        homeAssistant: homeAssistant, homes: homes, management: management, logging: logging,
        moreProviders: moreProviders, responseTopics: responseTopics)
    try await withStopping(harness, body)
}

/// A gateway wired to a real mosquitto and the in-memory provider, with an observer client subscribed to
/// everything under the base topic: for what depends on the broker (reconnects, retained messages a
/// broker replays, Retain As Published, response topics end to end, a real Home Assistant). Made and
/// always stopped by `withBrokerGatewayHarness`.
final class BrokerGatewayHarness: Stoppable {
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

    /// Starts everything; on a failure, stops what it started before throwing.
    init(
        accessories: [Accessory] = GatewayFixture.accessories(), autoSync: Bool = true,
        homeAssistant: HomeAssistantConfiguration = GatewayFixture.perEntity,
        brokerOptions: MosquittoBroker.Options = MosquittoBroker.Options(), sessionExpiry: Duration? = nil
    ) async throws {
        broker = try await MosquittoBroker(options: brokerOptions)
        (provider, store) = await GatewayFixture.store(
            accessories, autoSync: autoSync, writeTimeout: .seconds(10), homes: [Home(name: "Home")], log: log)
        var configuration = MQTTConfiguration(url: broker.url, clientID: "gateway-\(UUID().uuidString.prefix(6))")
        configuration.will = Gateway.lastWill(baseTopic: "hap2mqtt")
        configuration.reconnectDelay = (.milliseconds(100), .milliseconds(500))
        configuration.sessionExpiry = sessionExpiry
        do {
            observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/#"])
            do {
                mqtt = try MQTTClient(configuration: configuration, logger: log.logger(label: "mqtt"))
                try await mqtt.connect()
            } catch {
                await observer.disconnect()
                throw error
            }
        } catch {
            await broker.stop()
            throw error
        }
        gateway = Gateway(
            configuration: GatewayConfiguration(
                version: "test", mqttSummary: ["url": broker.url], homeAssistant: homeAssistant),
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
        GatewayFixture.address(provider, aid: aid, type)
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

/// Runs `body` with a gateway on a real broker (see `BrokerGatewayHarness`) and stops everything
/// afterwards, also when `body` throws.
func withBrokerGatewayHarness(
    autoSync: Bool = true, brokerOptions: MosquittoBroker.Options = MosquittoBroker.Options(),
    sessionExpiry: Duration? = nil,
    _ body: (BrokerGatewayHarness) async throws -> Void
) async throws {
    try await withStopping(
        try await BrokerGatewayHarness(autoSync: autoSync, brokerOptions: brokerOptions, sessionExpiry: sessionExpiry),
        body)
}

/// The JSON object of a message's payload.
func jsonObject(_ message: MQTTMessage) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(message.payload))) as? [String: Any]
}

/// The JSON object of a text payload.
func jsonObject(_ text: String) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
}

/// Whether every discovery config among the topics cleared in `messages` (empty retained messages) was
/// cleared before the first state topic of the accessory at `slug`, and both were: Home Assistant parses an
/// empty state payload that reaches an entity still configured, and logs an error for each.
func configsClearedFirst(_ messages: some Sequence<MQTTMessage>, slug: String) -> Bool {
    let cleared = messages.filter { $0.retain && $0.payload.isEmpty }.map(\.topic)
    guard let lastConfig = cleared.lastIndex(where: { $0.hasPrefix("homeassistant/") }),
        let firstState = cleared.firstIndex(where: { $0 == "hap2mqtt/\(slug)" || $0.hasPrefix("hap2mqtt/\(slug)/") })
    else { return false }
    return lastConfig < firstState
}
