import Foundation
import HAP2MQTTTesting
import Testing

/// `bridge/discovered` and `bridge/request/pair` by id, through a real avahi-daemon: a HAP-python bridge
/// that announces itself with its own zeroconf. Runs only inside a private network namespace
/// (`DiscoveryNamespaceTests` starts it).
@Suite(
    "bridge/discovered and pair by id over MQTT, with Avahi",
    .enabled(if: AvahiNamespace.isInside, "runs inside a private network namespace (DiscoveryNamespaceTests)"))
struct DiscoveryLiveManagementTests {
    /// The entries of the retained `bridge/discovered`, by id.
    static func discovered(_ live: LiveManagementTests.Unpaired) async throws -> [String: [String: Any]] {
        let snapshot = try await MQTTTestClient.retainedSnapshot(of: live.broker, ["hap2mqtt/bridge/discovered"])
        guard let text = snapshot["hap2mqtt/bridge/discovered"],
            let list = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [[String: Any]]
        else { return [:] }
        return Dictionary(
            list.compactMap { entry in (entry["id"] as? String).map { ($0, entry) } }, uniquingKeysWith: { a, _ in a })
    }

    @Test("bridge/discovered lists the announced accessory; pair by id over MQTT takes it up and off the list")
    func discoveredAndPairByID() async throws {
        let live = try await LiveManagementTests.Unpaired.start(announced: true)
        let id = try await live.accessory.status().pairingID
        var entry: [String: Any] = [:]
        try await eventually("bridge/discovered to list \(id)", timeout: .seconds(60)) {
            entry = try await Self.discovered(live)[id] ?? [:]
            return !entry.isEmpty
        }
        #expect(entry["category"] as? String == "bridge")
        #expect(entry["model"] as? String == "hap2mqtt Test Bridge")
        #expect(entry["address"] as? String == "127.0.0.1")
        #expect(entry["port"] as? Int == Int(live.accessory.port))
        #expect(entry["paired_elsewhere"] as? Bool == false)

        let unknown = try await live.request(
            "pair", #"{"id":"01:02:03:04:05:06","code":"\#(live.accessory.setupCode)"}"#)
        #expect(
            (unknown["error"] as? String)?.hasPrefix(
                "no accessory with id 01:02:03:04:05:06 announced itself within 10 seconds") == true, "\(unknown)")
        let badID = try await live.request("pair", #"{"id":"lamp","code":"\#(live.accessory.setupCode)"}"#)
        #expect((badID["error"] as? String)?.hasPrefix("the id must be a device id") == true, "\(badID)")

        let answer = try await live.request(
            "pair", #"{"id":"\#(id.lowercased())","code":"\#(live.accessory.setupCode)"}"#)
        #expect(answer["status"] as? String == "ok", "\(answer)\n\(live.gateway.log.suffix(3000))")
        #expect((answer["data"] as? [String: Any])?["port"] as? Int == Int(live.accessory.port))
        for slug in LiveManagementTests.slugs {
            _ = try await live.observer.waitFor(topic: "hap2mqtt/\(slug)/availability", timeout: .seconds(30)) {
                $0.payloadString == "online"
            }
        }
        try await eventually("bridge/discovered without \(id)", timeout: .seconds(30)) {
            try await Self.discovered(live)[id] == nil
        }
        try await live.expectCodeNowhere()
        await live.stop()
    }
}
