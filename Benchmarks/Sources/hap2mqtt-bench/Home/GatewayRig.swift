import Foundation
import Gateway
import HAP2MQTTTesting
import HomeModel
import HomeStore
import Logging
import MQTT

/// A gateway as `hap2mqtt run` wires it (home store, MQTT client, `Gateway`), with the in-memory provider
/// in place of the HAP controller, in this process, on the benchmark's broker under its own base topic.
final class GatewayRig: Stoppable {
    let base: String
    let provider: InMemoryAccessoryProvider
    let store: HomeStore
    let mqtt: MQTTClient
    let gateway: Gateway
    let runner: Task<Void, Never>

    /// Connects the gateway's MQTT client; the gateway publishes nothing before `publishHome(to:)`.
    init(brokerURL: String, base: String, accessories: [Accessory], stateQoS: MQTTQoS = .atLeastOnce) async throws {
        self.base = base
        provider = InMemoryAccessoryProvider(serverID: BenchmarkHome.serverID, accessories: accessories)
        store = HomeStore(logger: Logger(label: "homestore"))
        await store.add(provider)
        var configuration = MQTTConfiguration(url: brokerURL, clientID: "bench-gateway-\(UUID().uuidString.prefix(8))")
        configuration.will = Gateway.lastWill(baseTopic: base)
        mqtt = try MQTTClient(configuration: configuration, logger: Logger(label: "mqtt"))
        try await mqtt.connect()
        gateway = Gateway(
            configuration: GatewayConfiguration(baseTopic: base, stateQoS: stateQoS, version: "bench"), store: store,
            mqtt: mqtt, logger: Logger(label: "gateway"))
        let gateway = self.gateway
        // The gateway waits for the store's first sync, which starts with `publishHome(to:)`.
        runner = Task { await gateway.run() }
    }

    /// Starts the store, and returns when the gateway's first full publication reached `subscriber`
    /// (subscribed to `<base>/#` already): `bridge/accessories` is the last message of it. Returns the
    /// state topics that message lists.
    @discardableResult
    func publishHome(to subscriber: BareClient, timeout: Duration = .seconds(60)) async throws -> PublishedTopics {
        let topic = "\(base)/bridge/accessories"
        let store = self.store
        let seen = await subscriber.expect(TopicsExpectation([topic]), timeout: timeout) {
            Task { await store.start() }
        }
        guard let payload = seen?.payloads[topic] else {
            throw BenchmarkError.timedOut("the gateway did not publish \(topic) within \(timeout)")
        }
        return try PublishedTopics(bridgeAccessories: payload)
    }

    /// Runs `body` with a gateway and stops the gateway afterwards, also when `body` throws.
    static func with<T>(
        brokerURL: String, base: String, accessories: [Accessory], stateQoS: MQTTQoS = .atLeastOnce,
        _ body: (GatewayRig) async throws -> T
    ) async throws -> T {
        try await withStopping(
            try await GatewayRig(brokerURL: brokerURL, base: base, accessories: accessories, stateQoS: stateQoS), body)
    }

    func stop() async {
        await gateway.stop()
        runner.cancel()
        await mqtt.disconnect()
        await store.stop()
    }
}

/// The state topic of every characteristic, as the gateway lists them in `<base>/bridge/accessories`.
struct PublishedTopics: Sendable {
    private struct Entry: Decodable {
        struct ServiceEntry: Decodable { var characteristics: [CharacteristicEntry] }
        struct CharacteristicEntry: Decodable {
            var iid: Int
            var topic: String
        }
        var id: String
        var topic: String
        var services: [ServiceEntry]
    }

    private var topics: [String: String] = [:]
    private var accessoryTopics: [String: String] = [:]

    /// - Throws: `BenchmarkError.mqtt` when the payload is not the documented JSON array.
    init(bridgeAccessories payload: [UInt8]) throws {
        let entries: [Entry]
        do {
            entries = try JSONDecoder().decode([Entry].self, from: Data(payload))
        } catch {
            throw BenchmarkError.mqtt("bridge/accessories is not the expected JSON: \(error)")
        }
        for entry in entries {
            accessoryTopics[entry.id] = entry.topic
            for service in entry.services {
                for c in service.characteristics { topics["\(entry.id)#\(c.iid)"] = c.topic }
            }
        }
    }

    /// `<base>/<accessory>/<service>/<characteristic>`.
    func stateTopic(_ address: CharacteristicAddress) -> String? { topics["\(address.accessory)#\(address.iid)"] }

    /// `<base>/<accessory>`, the accessory's JSON.
    func accessoryTopic(_ id: AccessoryID) -> String? { accessoryTopics[id.description] }
}
