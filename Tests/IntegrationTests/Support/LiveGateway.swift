import Foundation
import HAP2MQTTTesting
import HomeModel
import MQTT
import Testing

/// The whole product on loopback: a real mosquitto, the real HAP-python bridge, and the real `hap2mqtt`
/// binary paired with it (through `hap2mqtt pair`, into the gateway's own state directory), plus an MQTT
/// observer subscribed to `hap2mqtt/#` before the gateway starts. Every test makes its own and stops it.
struct LiveGateway {

    let broker: MosquittoBroker
    let accessory: HAPPythonAccessory
    let gateway: GatewayProcess
    let observer: MQTTTestClient

    /// Starts the broker and the accessory, pairs the gateway with it, connects the observer and, unless
    /// `run` is false, starts `hap2mqtt run`.
    /// - Parameter announced: the accessory announces itself over mDNS and is paired with `pair --id`
    ///   (only inside a private network namespace, `AvahiNamespace`).
    /// - Parameter homekit: more keys of the gateway's `homekit` section (`["poll_interval": "2"]`).
    static func start(
        extraYAML: String = "", pairingID: String? = nil, run: Bool = true, announced: Bool = false,
        homekit: [String: String] = [:]
    ) async throws -> LiveGateway {
        let broker = try await MosquittoBroker()
        let accessory = try await HAPPythonAccessory.start(pairingID: pairingID, announced: announced)
        let gateway = try GatewayProcess(brokerURL: broker.url, extraYAML: extraYAML, homekit: homekit)
        if announced {
            let id = try await accessory.status().pairingID
            let paired = try await gateway.runCommand(["pair", "--id", id, "--code", accessory.setupCode])
            try #require(paired.status == 0, "hap2mqtt pair --id failed:\n\(paired.output)")
        } else {
            try await pair(gateway, with: accessory)
        }
        let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/#"])
        let live = LiveGateway(broker: broker, accessory: accessory, gateway: gateway, observer: observer)
        if run { try gateway.start() }
        return live
    }

    /// `hap2mqtt pair --host 127.0.0.1 --port P --code C`, awaited; it must exit 0.
    static func pair(_ gateway: GatewayProcess, with accessory: HAPPythonAccessory) async throws {
        try await pair(gateway, port: accessory.port, code: accessory.setupCode)
    }

    /// `hap2mqtt pair --host 127.0.0.1 --port <port> --code <code>`, awaited; it must exit 0.
    static func pair(_ gateway: GatewayProcess, port: UInt16, code: String) async throws {
        try gateway.start(["pair", "--host", "127.0.0.1", "--port", String(port), "--code", code])
        try await eventually("hap2mqtt pair to finish", timeout: .seconds(30)) { !gateway.isRunning }
        try #require(gateway.terminationStatus == 0, "hap2mqtt pair failed:\n\(gateway.log)")
    }

    /// Waits until `bridge/state` is online (the first sync is done).
    @discardableResult
    func waitUntilOnline(timeout: Duration = .seconds(60)) async throws -> MQTTMessage {
        try await observer.waitFor(topic: "hap2mqtt/bridge/state", timeout: timeout) { $0.bridgeState == "online" }
    }

    /// The parsed `bridge/accessories` the broker holds.
    func accessoryList() async throws -> [BridgeAccessory] {
        let message = try #require(try await observer.retained("hap2mqtt/bridge/accessories"), "no bridge/accessories")
        return try JSONDecoder().decode([BridgeAccessory].self, from: Data(message.payload))
    }

    /// The `state` of the retained `bridge/state` (`online`, `offline`), nil when none.
    func bridgeState() async throws -> String? {
        try await observer.retained("hap2mqtt/bridge/state")?.bridgeState
    }

    /// Waits for `bridge/state` to say `state`.
    @discardableResult
    func waitForBridgeState(_ state: String, timeout: Duration = .seconds(30)) async throws -> MQTTMessage {
        try await observer.waitFor(topic: "hap2mqtt/bridge/state", timeout: timeout) { $0.bridgeState == state }
    }

    /// The payload the broker holds retained on `topic`, nil when none.
    func retained(_ topic: String) async throws -> String? {
        try await observer.retained(topic)?.payloadString
    }

    /// Every retained message under `hap2mqtt/` the broker holds now, by topic, read with a fresh client:
    /// retained messages arrive before a marker it publishes to itself.
    /// `filters` reads other topics instead (`homeassistant/#` for the discovery configs).
    /// `bridge/health` changes by itself (uptime, memory) every minute: it is left out of the state
    /// compared unless `includingHealth`.
    func retainedSnapshot(_ filters: [String] = ["hap2mqtt/#"], includingHealth: Bool = false) async throws -> [String:
        String]
    {
        try await MQTTTestClient.retainedSnapshot(of: broker, filters).filter {
            includingHealth || $0.key != "hap2mqtt/bridge/health"
        }
    }

    /// The gateway paired with a fresh HAP-python bridge through a `TCPProxy` (which the test can cut or
    /// black-hole), running, and online with its Light accessory.
    static func startBehindProxy() async throws -> (LiveGateway, TCPProxy) {
        let broker = try await MosquittoBroker()
        let accessory = try await HAPPythonAccessory.start()
        let proxy = try TCPProxy(to: Int(accessory.port))
        let gateway = try GatewayProcess(brokerURL: broker.url)
        try await pair(gateway, port: UInt16(proxy.port), code: accessory.setupCode)
        let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/#"])
        let live = LiveGateway(broker: broker, accessory: accessory, gateway: gateway, observer: observer)
        try gateway.start()
        try await live.waitUntilOnline()
        try await live.waitFor("hap2mqtt/light/availability", "online")
        return (live, proxy)
    }

    /// Waits until the observer sees `payload` on `topic` (retained or not); returns the message.
    /// - Throws: the time-out, with the end of the gateway's log.
    @discardableResult
    func waitFor(_ topic: String, _ payload: String, timeout: Duration = .seconds(30)) async throws -> MQTTMessage {
        try await withLog { try await observer.waitFor(topic: topic, timeout: timeout) { $0.payloadString == payload } }
    }

    /// Waits until the observer sees any message on `topic`.
    /// - Throws: the time-out, with the end of the gateway's log.
    func next(on topic: String, timeout: Duration = .seconds(30)) async throws -> MQTTMessage {
        try await withLog { try await observer.waitFor(topic: topic, timeout: timeout) }
    }

    /// `body`'s result; its error gets the end of the gateway's log added.
    private func withLog<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw TestSupportError.timedOut("\(error)\n--- hap2mqtt log ---\n\(gateway.log.suffix(4000))")
        }
    }

    /// Publishes `payload` on `topic` (not retained).
    func publish(_ topic: String, _ payload: String, properties: MQTTProperties = MQTTProperties()) async throws {
        try await observer.publish(topic, payload, properties: properties)
    }

    /// Makes the gateway connect to the broker again: another client with the gateway's client id takes its
    /// session over for a moment, the broker drops the gateway's connection, and the gateway reconnects.
    func takeSessionOver() async throws {
        let yaml = try String(contentsOf: gateway.configurationFile, encoding: .utf8)
        let line = try #require(yaml.split(separator: "\n").first { $0.contains("client_id:") })
        let clientID = String(line.split(separator: ":", maxSplits: 1)[1]).trimmingCharacters(in: .whitespaces)
        let intruder = try await MQTTTestClient.connect(to: broker, clientID: clientID, subscribe: [])
        await intruder.disconnect()
    }

    /// Stops everything that runs, the gateway first (a running gateway must exit cleanly, with status 0).
    func stop() async {
        let running = gateway.isRunning
        await gateway.stop()
        if running {
            #expect(gateway.terminationStatus == 0, "hap2mqtt did not stop cleanly:\n\(gateway.log.suffix(3000))")
        }
        await observer.disconnect()
        await accessory.stop()
        await broker.stop()
    }
}

/// One entry of `bridge/accessories`, as much as the tests read.
struct BridgeAccessory: Decodable {
    struct Service: Decodable {
        var slug: String
        var characteristics: [Characteristic]
    }

    struct Characteristic: Decodable {
        var name: String?
        var slug: String
        var topic: String
        var format: String?
        var perms: [String]
        var isReadable: Bool { perms.contains("pr") }
    }

    var id: String
    var name: String
    var slug: String
    var room: String?
    var reachable: Bool
    var topic: String
    var services: [Service]
}

/// Whether a published payload shows the same value as the fixture's: equal text, or equal numbers
/// (`20` and `20.0`), or equal booleans.
func samePayload(_ published: String?, _ value: CharacteristicValue?) -> Bool {
    guard let published, let value else { return published == nil && value == nil }
    let expected = value.description
    if published == expected { return true }
    if let a = Double(published), let b = Double(expected) { return a == b }
    if let b = value.boolValue { return published == (b ? "true" : "false") }
    return false
}
