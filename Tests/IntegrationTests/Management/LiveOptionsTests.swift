import Foundation
import HAP2MQTTTesting
import MQTT
import Testing

/// `bridge/request/options` through the real binary, a real mosquitto and the HAP-python bridge
/// (docs/topics.md "Managing the gateway over MQTT").
@Suite("hap2mqtt run managed over MQTT: options", .serialized)
struct LiveOptionsTests {
    typealias Live = LiveManagementTests.Unpaired

    /// The retained messages under `filters` now, by topic.
    static func retained(_ live: Live, _ filters: [String] = ["hap2mqtt/#"]) async throws -> [String: String] {
        try await MQTTTestClient.retainedSnapshot(of: live.broker, filters)
    }

    /// The `bridge/accessories` entry with slug `slug`.
    static func listed(_ live: Live, _ slug: String) async throws -> [String: Any]? {
        let list = try #require(try await retained(live)["hap2mqtt/bridge/accessories"])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(list.utf8)) as? [[String: Any]])
        return entries.first { $0["slug"] as? String == slug }
    }

    /// Stops the gateway and starts it again on the same state directory; waits until it is online.
    static func restart(_ live: Live) async throws {
        await live.gateway.stop()
        #expect(live.gateway.terminationStatus == 0)
        await live.observer.clear()
        try live.gateway.start()
        _ = try await live.observer.waitFor(topic: "hap2mqtt/bridge/state", timeout: .seconds(60)) {
            $0.bridgeState == "online"
        }
    }

    @Test(
        "options over MQTT: bad requests change nothing; a name moves the retained topics and survives a restart in a 0600 file; exclude clears every topic and refuses /set, also after a restart"
    )
    func options() async throws {
        let live = try await Live.start()
        try await live.pairOverMQTT(waitingFor: "light")
        let file = live.gateway.stateDirectory.appendingPathComponent("options.json").path
        try await eventually("the light in bridge/accessories", timeout: .seconds(30)) {
            try await Self.listed(live, "light") != nil
        }
        let id = try #require(try await Self.listed(live, "light")?["id"] as? String)
        let node = "hap2mqtt_" + id.lowercased().map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined()

        let refusals: [(String, String)] = [
            (#"{"accessory":"nobody","options":{"name":"X"}}"#, "no accessory 'nobody'; see bridge/accessories"),
            (#"{"accessory":"light","options":{"name":5}}"#, #""name" must be a string, or null to remove it"#),
            (#"{"accessory":"light","options":{"exclude":1}}"#, #""exclude" must be true or false"#),
            (#"{"accessory":"light","options":{"friendly_name":"X"}}"#, #"unknown option "friendly_name""#),
            (#"{"accessory":"light","options":"X"}"#, "give the options as an object"),
            (#"{"accessory":"light","#, "the request must be a JSON object"),
        ]
        for (payload, error) in refusals {
            let answer = try await live.request("options", payload)
            #expect(answer["status"] as? String == "error", "\(payload)")
            #expect((answer["error"] as? String)?.hasPrefix(error) == true, "\(payload): \(answer)")
        }
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(try await Self.retained(live)["hap2mqtt/light/lightbulb/on"] != nil)

        // A name moves every retained topic; the room reaches Home Assistant's discovery configs.
        let renamed = try await live.request(
            "options", #"{"accessory":"light","options":{"name":"Desk Lamp","room":"Office"},"transaction":"o1"}"#)
        #expect(renamed["status"] as? String == "ok", "\(renamed)")
        #expect(renamed["transaction"] as? String == "o1")
        let data = try #require(renamed["data"] as? [String: Any])
        #expect(data["accessory"] as? String == "desk_lamp")
        #expect(data["from"] as? String == "light")
        try await eventually("the topics moved", timeout: .seconds(30)) {
            let now = try await Self.retained(live)
            return now["hap2mqtt/desk_lamp/lightbulb/on"] != nil && now["hap2mqtt/desk_lamp/availability"] == "online"
                && !now.keys.contains { $0 == "hap2mqtt/light" || $0.hasPrefix("hap2mqtt/light/") }
        }
        try await eventually("the room in the discovery configs", timeout: .seconds(30)) {
            try await Self.retained(live, ["homeassistant/+/\(node)/+/config"]).values.allSatisfy {
                $0.contains(#""suggested_area":"Office""#)
            }
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

        // Saved: a restart keeps the name, the room and the topics.
        try await Self.restart(live)
        let entry = try #require(try await Self.listed(live, "desk_lamp"))
        #expect(entry["name"] as? String == "Desk Lamp")
        #expect(entry["room"] as? String == "Office")
        #expect((entry["options"] as? [String: Any])?["name"] as? String == "Desk Lamp")
        let info = try #require(try await Self.retained(live)["hap2mqtt/bridge/info"])
        #expect(info.contains(#""options":{"\#(id)":{"name":"Desk Lamp","room":"Office"}}"#), "\(info)")
        #expect(try await Self.retained(live).keys.contains { $0.hasPrefix("hap2mqtt/light/") } == false)

        // Excluded: every topic and config cleared, a /set refused, also after a restart.
        let excluded = try await live.request("options", #"{"accessory":"desk_lamp","options":{"exclude":true}}"#)
        #expect(excluded["status"] as? String == "ok", "\(excluded)")
        try await eventually("every topic of it cleared", timeout: .seconds(30)) {
            let configs = try await Self.retained(live, ["homeassistant/+/\(node)/+/config"])
            return try await Self.retained(live).keys.contains { $0.hasPrefix("hap2mqtt/desk_lamp") } == false
                && configs.isEmpty
        }
        try await expectRefused(live)
        try await Self.restart(live)
        #expect(try await Self.retained(live).keys.contains { $0.hasPrefix("hap2mqtt/desk_lamp") } == false)
        #expect(try await Self.listed(live, "desk_lamp") == nil)
        try await expectRefused(live)

        let back = try await live.request("options", #"{"accessory":"desk_lamp","options":{"exclude":false}}"#)
        #expect(back["status"] as? String == "ok", "\(back)")
        _ = try await live.observer.waitFor(topic: "hap2mqtt/desk_lamp/availability", timeout: .seconds(30)) {
            $0.payloadString == "online"
        }
        await live.observer.clear()
        try await live.observer.publish("hap2mqtt/desk_lamp/lightbulb/on/set", "true")
        let result = try await live.observer.waitFor(topic: "hap2mqtt/desk_lamp/lightbulb/on/set/result")
        #expect(result.payloadString == #"{"status":"ok","value":true}"#)
        await live.stop()
    }

    /// A `/set` to the excluded lamp is answered with the error that says how to bring it back.
    private func expectRefused(_ live: Live) async throws {
        await live.observer.clear()
        try await live.observer.publish("hap2mqtt/desk_lamp/lightbulb/on/set", "true")
        let result = try await live.observer.waitFor(
            topic: "hap2mqtt/desk_lamp/lightbulb/on/set/result", timeout: .seconds(30))
        let error = (try? JSONSerialization.jsonObject(with: Data(result.payload)) as? [String: Any])?["error"]
        #expect(
            error as? String
                == #"accessory 'desk_lamp' is excluded by its options and takes no commands; bridge/request/options {"accessory":"desk_lamp","options":{"exclude":false}} brings it back"#
        )
    }
}
