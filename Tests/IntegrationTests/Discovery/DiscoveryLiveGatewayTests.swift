import Foundation
import HAP2MQTTTesting
import HomeModel
import MQTT
import Testing

/// `hap2mqtt run` following announcements through a real avahi-daemon: a HAP-python bridge that
/// announces itself with its own zeroconf, paired with `pair --id`. Runs only inside a private network
/// namespace (`DiscoveryNamespaceTests` starts it).
@Suite(
    "hap2mqtt run follows announcements through Avahi",
    .enabled(if: AvahiNamespace.isInside, "runs inside a private network namespace (DiscoveryNamespaceTests)"))
struct DiscoveryLiveGatewayTests {
    static let slugs = ["hap2mqtt_test_bridge", "light", "switch", "temperature", "lock", "thermostat", "blind"]

    /// Whether the observer saw `offline` on any availability topic.
    static func sawOffline(_ live: LiveGateway) async -> [String] {
        await live.observer.messages(on: "hap2mqtt/+/availability").filter { $0.payloadString == "offline" }.map(
            \.topic)
    }

    @Test("an accessory restarted on another port is followed there, and its pairing file keeps the new port")
    func moved() async throws {
        let live = try await LiveGateway.start(announced: true)
        try await live.waitUntilOnline()
        let id = try await live.accessory.status().pairingID
        await live.accessory.stop()
        try await live.waitFor("hap2mqtt/light/availability", "offline", timeout: .seconds(60))
        await live.observer.clear()

        let port = try await live.accessory.startOnAnotherPort()
        for slug in Self.slugs {
            try await live.waitFor("hap2mqtt/\(slug)/availability", "online", timeout: .seconds(60))
        }
        #expect(live.gateway.log.contains("moved from 127.0.0.1:"), "\(live.gateway.log.suffix(3000))")
        let file = live.gateway.stateDirectory.appendingPathComponent(
            "pairing-\(id.replacingOccurrences(of: ":", with: "-")).json")
        let stored = try JSONDecoder().decode(StoredPairing.self, from: Data(contentsOf: file))
        #expect(stored.port == Int(port))
        #expect(
            !live.gateway.log.contains("changed; connecting with it"), "the gateway's own save starts no new provider")
        try await live.publish("hap2mqtt/switch/switch/on/set", "true")
        try await live.waitFor("hap2mqtt/switch/switch/on/set/result", #"{"status":"ok","value":true}"#)
        await live.stop()
    }

    @Test(
        "an accessory stopped and started again is online as soon as it announces itself, long before its back-off ends"
    )
    func returned() async throws {
        let live = try await LiveGateway.start(announced: true)
        try await live.waitUntilOnline()
        await live.accessory.stop()
        try await live.waitFor("hap2mqtt/light/availability", "offline", timeout: .seconds(60))
        // Let the back-off grow: after five failed attempts (0.5 + 1 + 2 + 4 + 8 s) it waits 16 s ± 20 %.
        try await eventually("a back-off of 12 s or more", timeout: .seconds(120)) {
            (live.gateway.log.split(separator: "\n").compactMap(Self.backoff).last ?? 0) >= 12
        }
        await live.observer.clear()
        try await live.accessory.start()
        try await live.waitFor("hap2mqtt/light/availability", "online", timeout: .seconds(60))
        // The announcement, not the end of the back-off, brought it back: right after the long wait began,
        // the next thing the provider did was to hear the announcement and connect.
        let lines = live.gateway.log.split(separator: "\n").filter { $0.contains(" hap: ") }
        let announced = try #require(
            lines.lastIndex { $0.contains("announced itself at 127.0.0.1:\(live.accessory.port); reconnecting now") })
        let waited = try #require(lines[..<announced].lastIndex { Self.backoff($0) != nil })
        #expect(try #require(Self.backoff(lines[waited])) >= 12, "\(lines.joined(separator: "\n"))")
        #expect(
            !lines[waited..<announced].contains { $0.contains("connecting to 127.0.0.1") },
            "\(lines[waited...announced])")
        await live.stop()
    }

    /// `body`'s result; its error gets the end of the gateway's log added.
    static func withLog<T>(_ live: LiveGateway, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw TestSupportError.timedOut("\(error)\n--- hap2mqtt log ---\n\(live.gateway.log.suffix(4000))")
        }
    }

    /// The delay of a "reconnecting in N s" line.
    static func backoff(_ line: Substring) -> Double? {
        guard let range = line.range(of: "reconnecting in ") else { return nil }
        return Double(line[range.upperBound...].prefix { $0 != " " })
    }

    @Test(
        "an accessory dropped and added back while running (c# up) is reconciled on the open connection, nothing offline"
    )
    func configurationChange() async throws {
        let live = try await LiveGateway.start(announced: true)
        try await live.waitUntilOnline()
        await live.observer.clear()
        // Not a wait for anything: mDNS keeps a record that is replaced within a second of its last
        // announcement beside the new one (RFC 6762 section 10.2), and the pairing just made the bridge
        // announce sf=0. A configuration change that close to it would not reach any browser.
        try await Task.sleep(for: .seconds(2))
        try await live.accessory.removeAccessory("Switch")
        let removed = try await Self.withLog(live) {
            try await live.observer.waitFor(topic: "hap2mqtt/bridge/event", timeout: .seconds(60)) {
                $0.payloadString?.contains(#""type":"accessory_removed""#) == true
            }
        }
        #expect(removed.payloadString?.contains(#""accessory":"switch""#) == true)
        try await eventually("the switch's topics to be cleared") {
            try await live.retainedSnapshot().keys.filter { $0.hasPrefix("hap2mqtt/switch/") }.isEmpty
        }
        try await live.accessory.addAccessory("Switch", kind: .switch)
        let added = try await Self.withLog(live) {
            try await live.observer.waitFor(topic: "hap2mqtt/bridge/event", timeout: .seconds(60)) {
                $0.payloadString?.contains(#""type":"accessory_added""#) == true
            }
        }
        #expect(added.payloadString?.contains(#""name":"Switch""#) == true, "\(added.payloadString ?? "")")
        try await eventually("the switch's topics back") {
            try await live.accessoryList().contains { $0.name == "Switch" && $0.reachable }
        }
        let offline = await Self.sawOffline(live)
        #expect(offline.isEmpty, "\(offline)")
        #expect(live.gateway.log.contains("changed its configuration"))
        #expect(!live.gateway.log.contains("lost the connection"))
        await live.stop()
    }

    @Test("a reset accessory is reported: the pair-again error with --id, offline with that reason")
    func reset() async throws {
        let live = try await LiveGateway.start(announced: true)
        try await live.waitUntilOnline()
        let id = try await live.accessory.status().pairingID
        await live.observer.clear()
        try await live.accessory.resetPairings()
        try await live.waitFor("hap2mqtt/light/availability", "offline", timeout: .seconds(60))
        try await eventually("the pair-again error", timeout: .seconds(60)) {
            live.gateway.log.contains("no longer accepts this controller")
        }
        #expect(live.gateway.log.contains("Pair again with hap2mqtt pair --id \(id)"))
        try await eventually("bridge/accessories to say why", timeout: .seconds(60)) {
            try await live.accessoryList().allSatisfy { !$0.reachable }
        }
        await live.stop()
    }
}

/// The fields of a pairing file the tests read.
struct StoredPairing: Decodable {
    var host: String
    var port: Int
}
