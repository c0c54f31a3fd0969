import Foundation
import Gateway
import HAP2MQTTTesting
import HomeModel
import HomeStore
import Logging
import MQTT
import SystemSupport
import Testing
import Web

/// The web page on port 0 of 127.0.0.1 over a real `HomeStore`, `Gateway` and `Management` (a recording
/// MQTT client, an in-memory provider with a lamp, a lock and a thermostat, a fake pairing backend and a
/// fake discovery the test sets). Made and always stopped by `withWebPageHarness`.
final class WebPageHarness: Stoppable {
    static let serverID = "00:00:00:00:00:01"
    let provider: InMemoryAccessoryProvider
    let store: HomeStore
    let mqtt = RecordingMQTTClient()
    let gateway: Gateway
    let pairing = FakeAccessoryPairing()
    let discovery = FakeAccessoryDiscovery()
    let management: Management
    let frontend: WebPage
    let feed = LogFeed()
    let log = LogCapture()
    let port: UInt16
    /// Where Management saves the accessories' options (removed by `stop()`).
    let stateDirectory = StateDirectory(
        path: FileManager.default.temporaryDirectory.appendingPathComponent("webpage-\(UUID().uuidString)").path)
    private let runners: [Task<Void, Never>]

    fileprivate init(token: String?, limits: HTTPLimits) async throws {
        provider = InMemoryAccessoryProvider(
            serverID: Self.serverID,
            accessories: [
                InMemoryAccessoryProvider.accessory(aid: 2, name: "Kitchen Lamp", services: [.Service.lightbulb]),
                InMemoryAccessoryProvider.accessory(aid: 3, name: "Front Door", services: [.Service.lockMechanism]),
                InMemoryAccessoryProvider.accessory(aid: 4, name: "Hall Thermostat", services: [.Service.thermostat]),
            ],
            autoSync: true)
        store = HomeStore(logger: log.logger(label: "homestore"))
        await store.add(provider)
        try stateDirectory.create()
        management = Management(
            pairing: pairing, discovery: discovery, options: AccessoryOptionsFile(directory: stateDirectory),
            logger: log.logger(label: "management"))
        gateway = Gateway(
            configuration: GatewayConfiguration(version: "test", mqttSummary: [:]), store: store, mqtt: mqtt,
            management: management, logger: log.logger(label: "gateway"))
        await management.attach(gateway)
        frontend = WebPage(
            configuration: WebPageConfiguration(host: "127.0.0.1", port: 0, authToken: token, limits: limits),
            store: store,
            gateway: gateway, management: management, feed: feed, logger: log.logger(label: "frontend"))
        await store.start()
        let gateway = gateway
        let frontend = frontend
        try frontend.start()
        port = try #require(frontend.port)
        runners = [Task { await gateway.run() }, Task { await frontend.run() }]
        try await mqtt.waitFor(topic: "hap2mqtt/bridge/state") { $0.payloadString == #"{"state":"online"}"# }
    }

    func id(_ aid: Int) -> AccessoryID { AccessoryID(serverID: Self.serverID, aid: aid) }

    /// The address of the first characteristic of `type` in accessory `aid`.
    func address(aid: Int, _ type: HAPType) -> CharacteristicAddress {
        let accessory = provider.accessories.first { $0.aid == aid }!
        let c = accessory.services.flatMap(\.characteristics).first { $0.type == type }!
        return CharacteristicAddress(accessory: id(aid), iid: c.iid)
    }

    /// One request to the page.
    func request(
        _ method: String, _ path: String, headers: [String: String] = [:], body: String = ""
    ) async throws -> HTTPTestClient.Response {
        try await HTTPTestClient.request(port: port, method, path, headers: headers, body: Array(body.utf8))
    }

    /// The login form's post of `token`.
    func login(_ token: String) async throws -> HTTPTestClient.Response {
        try await request(
            "POST", "/login", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: "token=\(token)")
    }

    /// The session cookie (`hap2mqtt_session=…`) the login form gives for `token`.
    func session(_ token: String) async throws -> String {
        String(try #require(try await login(token).headers["set-cookie"]).prefix { $0 != ";" })
    }

    /// A JSON POST to the page's API.
    func post(_ path: String, _ json: String, headers: [String: String] = [:]) async throws -> HTTPTestClient.Response {
        try await request(
            "POST", path, headers: headers.merging(["Content-Type": "application/json"]) { a, _ in a }, body: json)
    }

    func stop() async {
        frontend.stop()
        for runner in runners { runner.cancel() }
        await gateway.stop()
        mqtt.finish()
        await store.stop()
        try? FileManager.default.removeItem(atPath: stateDirectory.path)
    }
}

/// Runs `body` with the page and its parts, stopping them afterwards (also when `body` throws).
func withWebPageHarness(
    token: String? = nil, limits: HTTPLimits = HTTPLimits(), _ body: (WebPageHarness) async throws -> Void
) async throws {
    let harness = try await WebPageHarness(token: token, limits: limits)
    try await withStopping(harness, body)
}
