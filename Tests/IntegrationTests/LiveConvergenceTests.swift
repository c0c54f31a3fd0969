import Foundation
import HAP2MQTTTesting
import HomeModel
import MQTT
import Testing

/// Nothing stale: the retained state on the broker converges to the home, whatever happened while the
/// gateway was not looking, and what is retained says what a user should believe.
@Suite("hap2mqtt run with a real accessory: nothing stale on the broker", .serialized)
struct LiveConvergenceTests {
    static let slugs = LiveRecoveryTests.slugs

    @Test("a clean stop publishes offline on every accessory's availability, then bridge/state offline")
    func cleanStopOffline() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        for slug in Self.slugs { #expect(try await live.retained("hap2mqtt/\(slug)/availability") == "online") }
        await live.gateway.stop()
        #expect(live.gateway.terminationStatus == 0)
        let after = try await live.retainedSnapshot()
        for slug in Self.slugs { #expect(after["hap2mqtt/\(slug)/availability"] == "offline", "\(slug)") }
        #expect(bridgeStateField(after["hap2mqtt/bridge/state"]) == "offline")
        await live.stop()
    }

    @Test(
        "an accessory removed while the gateway is stopped: every topic and config of it cleared before online, and accessory_removed"
    )
    func removedWhileStopped() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        let switchID = try #require(try await live.accessoryList().first { $0.slug == "switch" }?.id)
        let node = "hap2mqtt_" + switchID.lowercased().map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined()
        #expect(try await live.retainedSnapshot().keys.contains("hap2mqtt/switch/switch/on"))
        #expect(try await live.retainedSnapshot(["homeassistant/#"]).keys.contains { $0.contains("/\(node)/") })
        await live.gateway.stop()
        try await live.accessory.removeAccessory("Switch")

        await live.observer.clear()
        try live.gateway.start()
        try await live.waitUntilOnline()
        // Cleared in the same step that says online, so at once.
        let left = try await live.retainedSnapshot().keys.filter { $0.hasPrefix("hap2mqtt/switch") }
        #expect(left.isEmpty, "\(left.sorted())")
        let configs = try await live.retainedSnapshot(["homeassistant/#"]).keys.filter { $0.contains("/\(node)/") }
        #expect(configs.isEmpty, "\(configs.sorted())")
        let events = await live.observer.messages(on: "hap2mqtt/bridge/event").compactMap(\.payloadString)
        #expect(
            events.contains { $0.contains(#""type":"accessory_removed""#) && $0.contains(#""accessory":"switch""#) },
            "\(events)")
        #expect(try await live.accessoryList().map(\.slug).contains("switch") == false)
        // The other accessories' topics are all still there.
        #expect(try await live.retained("hap2mqtt/light/lightbulb/on") == "false")
        await live.stop()
    }

    @Test(
        "only what this gateway made is cleared: other clients' topics and configs, and bridge/, stay; its own ghosts go"
    )
    func othersKept() async throws {
        let live = try await LiveGateway.start(run: false)
        let others = [
            "homeassistant/switch/zigbee2mqtt_0x00158d0001/switch/config": #"{"name":"z2m"}"#,
            "homeassistant/switch/hap2mqtt_11_22_33_44_55_66_2/s8/config": #"{"name":"another gateway's accessory"}"#,
            "hap2mqtt/bridge/custom": "kept",
        ]
        let ghosts = ["hap2mqtt/ghost/switch/on": "true", "hap2mqtt/ghost": "{}"]
        for (topic, payload) in others.merging(ghosts, uniquingKeysWith: { a, _ in a }) {
            try await live.observer.publish(MQTTMessage(topic: topic, string: payload, qos: .atLeastOnce, retain: true))
        }
        try await eventually("the broker to hold them", timeout: .seconds(30)) {
            try await live.retainedSnapshot(["hap2mqtt/#", "homeassistant/#"]).count == others.count + ghosts.count
        }
        try live.gateway.start()
        try await live.waitUntilOnline()
        let snapshot = try await live.retainedSnapshot(["hap2mqtt/#", "homeassistant/#"])
        for (topic, payload) in others { #expect(snapshot[topic] == payload, "\(topic)") }
        for topic in ghosts.keys { #expect(snapshot[topic] == nil, "\(topic)") }
        #expect(snapshot["hap2mqtt/light/lightbulb/on"] == "false")
        await live.stop()
    }

    @Test("after every broker connection: a retained topic left under the base topic meanwhile is cleared")
    func clearedAfterReconnect() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        try await live.observer.publish(
            MQTTMessage(topic: "hap2mqtt/ghost/switch/on", string: "true", qos: .atLeastOnce, retain: true))
        try await eventually("the broker to hold the ghost", timeout: .seconds(30)) {
            try await live.retainedSnapshot()["hap2mqtt/ghost/switch/on"] == "true"
        }
        try await live.takeSessionOver()
        try await eventually("the ghost to be cleared after the reconnect", timeout: .seconds(60)) {
            try await live.retainedSnapshot()["hap2mqtt/ghost/switch/on"] == nil
        }
        #expect(live.gateway.log.contains("connected to the broker again"))
        #expect(try await live.retained("hap2mqtt/light/lightbulb/on") == "false")
        await live.stop()
    }

    @Test(
        "with discovery off, a bridge/discovered list an earlier run left is cleared at start and after every connection"
    )
    func staleDiscoveredListCleared() async throws {
        let live = try await LiveGateway.start(run: false)
        let stale =
            #"[{"id":"AA:BB:CC:DD:EE:FF","name":"Gone Lamp","model":null,"category":"lightbulb","address":null,"addresses":[],"port":51826,"paired_elsewhere":false}]"#
        let discovered = "hap2mqtt/bridge/discovered"
        try await live.observer.publish(MQTTMessage(topic: discovered, string: stale, qos: .atLeastOnce, retain: true))
        try await eventually("the broker to hold the stale list", timeout: .seconds(30)) {
            try await live.retainedSnapshot()[discovered] == stale
        }
        try live.gateway.start()
        try await live.waitUntilOnline()
        // Cleared before bridge/state said online.
        #expect(try await live.retainedSnapshot()[discovered] == nil)
        #expect(live.gateway.log.contains("DNS-SD discovery is off"))

        try await live.observer.publish(MQTTMessage(topic: discovered, string: stale, qos: .atLeastOnce, retain: true))
        try await eventually("the broker to hold the stale list again", timeout: .seconds(30)) {
            try await live.retainedSnapshot()[discovered] == stale
        }
        try await live.takeSessionOver()
        try await eventually("the stale list to be cleared after the reconnect", timeout: .seconds(60)) {
            try await live.retainedSnapshot()[discovered] == nil
        }
        await live.stop()
    }

    @Test(
        "a rename cut short by a kill leaves no topic under the old slug; stale temporary files are removed, a running writer's kept"
    )
    func renameKilled() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        let lightID = try #require(try await live.accessoryList().first { $0.slug == "light" }?.id)
        await live.gateway.kill()
        // What a rename leaves when killed after saving the new slug and before clearing the old topics,
        // and the temporary files of writes cut short (a process id above pid_max never runs).
        let directory = live.gateway.stateDirectory
        let slugsFile = directory.appendingPathComponent("slugs.json")
        var slugs = try JSONDecoder().decode([String: String].self, from: Data(contentsOf: slugsFile))
        slugs[lightID] = "lamp"
        try JSONEncoder().encode(slugs).write(to: slugsFile)
        let stale = "slugs.json.tmp-2147483647-1"
        let running = "pairing-x.json.tmp-\(getpid())-2"
        for name in [stale, running] {
            #expect(
                FileManager.default.createFile(
                    atPath: directory.appendingPathComponent(name).path, contents: Data("{".utf8),
                    attributes: [.posixPermissions: 0o600]))
        }

        await live.observer.clear()
        try live.gateway.start()
        try await live.waitUntilOnline()
        let snapshot = try await live.retainedSnapshot()
        let old = snapshot.keys.filter { $0.hasPrefix("hap2mqtt/light/") || $0 == "hap2mqtt/light" }
        #expect(old.isEmpty, "\(old.sorted())")
        #expect(snapshot["hap2mqtt/lamp/lightbulb/on"] == "false")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!files.contains(stale))
        #expect(files.contains(running), "a file of a process that runs may be a pairing being saved")
        await live.stop()
    }

    @Test("started while the bridge is down, which comes back without an accessory: every topic of it is cleared")
    func removedWhileDown() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        await live.gateway.stop()
        try await live.accessory.removeAccessory("Switch")
        await live.accessory.stop()
        await live.observer.clear()
        try live.gateway.start()
        try await live.waitUntilOnline()
        try await live.waitFor("hap2mqtt/switch/availability", "offline")

        try await live.accessory.start()
        try await live.waitFor("hap2mqtt/light/availability", "online", timeout: .seconds(60))
        try await eventually("every topic of the removed accessory to be cleared", timeout: .seconds(30)) {
            try await live.retainedSnapshot().keys.filter { $0.hasPrefix("hap2mqtt/switch") }.isEmpty
        }
        await live.stop()
    }

    @Test(
        "started while the bridge is down and its cached accessory list is damaged: its topics stay, shown offline, until it is back"
    )
    func damagedCacheKeepsTopics() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        try await live.accessory.setValue(accessory: "Light", characteristic: "Brightness", value: .int(42))
        try await live.waitFor("hap2mqtt/light/lightbulb/brightness", "42")
        let before = try await live.retainedSnapshot()
        let configs = try await live.retainedSnapshot(["homeassistant/#"])
        #expect(!configs.isEmpty)
        await live.gateway.stop()
        await live.accessory.stop()
        let state = live.gateway.stateDirectory.path
        let cache = try #require(
            try FileManager.default.contentsOfDirectory(atPath: state).first { $0.hasPrefix("accessories-") })
        try Data("{\"accessories\":\"nope\"}".utf8).write(to: URL(fileURLWithPath: state + "/" + cache))

        await live.observer.clear()
        try live.gateway.start()
        try await live.waitUntilOnline()
        try await live.waitFor("hap2mqtt/light/availability", "offline")
        let after = try await live.retainedSnapshot()
        for (topic, payload) in before where !topic.hasPrefix("hap2mqtt/bridge/") && !topic.hasSuffix("/availability") {
            if topic.split(separator: "/").count == 2 {
                // The accessory JSON: it may have followed the last change after `before` was read.
                #expect(after[topic] != nil, "\(topic) was cleared")
            } else {
                #expect(after[topic] == payload, "\(topic) was \(payload), now \(after[topic] ?? "cleared")")
            }
        }
        #expect(try await live.retainedSnapshot(["homeassistant/#"]) == configs, "Home Assistant keeps its entities")
        #expect(!live.gateway.log.contains("is gone since the last run"))

        try await live.accessory.start()
        try await live.waitFor("hap2mqtt/light/availability", "online", timeout: .seconds(60))
        #expect(try await live.retained("hap2mqtt/light/lightbulb/brightness") != nil)
        await live.stop()
    }

    @Test(
        "started with an empty state directory while the broker holds an earlier run's topics: they are left alone, with a warning"
    )
    func emptyStateDirectoryKeepsTopics() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        // Availability aside: the clean stop marks every accessory offline.
        func accessoryTopics() async throws -> [String: String] {
            try await live.retainedSnapshot().filter {
                !$0.key.hasPrefix("hap2mqtt/bridge/") && !$0.key.hasSuffix("/availability")
            }
        }
        let before = try await accessoryTopics()
        let configs = try await live.retainedSnapshot(["homeassistant/#"])
        await live.gateway.stop()
        // As a container whose volume is not mounted, or a typo in homekit.state_dir, would start.
        let state = live.gateway.stateDirectory
        let kept = state.deletingLastPathComponent().appendingPathComponent("data.kept")
        try FileManager.default.moveItem(at: state, to: kept)

        await live.observer.clear()
        try live.gateway.start()
        try await live.waitUntilOnline()
        #expect(try await accessoryTopics() == before, "every accessory topic stays")
        #expect(try await live.retained("hap2mqtt/light/availability") == "offline")
        #expect(try await live.retainedSnapshot(["homeassistant/#"]).count >= configs.count)
        #expect(live.gateway.log.contains("holds no slug map (slugs.json), but the broker holds topics"))
        #expect(!live.gateway.log.contains("is gone since the last run"))
        await live.gateway.stop()

        try FileManager.default.removeItem(at: state)
        try FileManager.default.moveItem(at: kept, to: state)
        try live.gateway.start()
        try await live.waitUntilOnline()
        try await live.waitFor("hap2mqtt/light/availability", "online")
        await live.stop()
    }

    @Test("started while the bridge is down, the accessory JSON holds the values its state topics keep")
    func jsonFromRetainedValues() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        try await live.accessory.setValue(accessory: "Light", characteristic: "Brightness", value: .int(42))
        try await live.waitFor("hap2mqtt/light/lightbulb/brightness", "42")
        await live.gateway.stop()
        await live.accessory.stop()

        await live.observer.clear()
        try live.gateway.start()
        try await live.waitUntilOnline()
        let json = try #require(try await live.retained("hap2mqtt/light"))
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: [String: Any]], "\(json)")
        let lightbulb = try #require(object["lightbulb"], "\(json)")
        #expect(lightbulb["brightness"] as? Int == 42, "\(json)")
        #expect(lightbulb["on"] as? Bool == false, "\(json)")
        let snapshot = try await live.retainedSnapshot()
        for (service, values) in object {
            for (characteristic, value) in values {
                let topic = "hap2mqtt/light/\(service)/\(characteristic)"
                let shown = (try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])).map {
                    String(decoding: $0, as: UTF8.self)
                }
                #expect(
                    snapshot[topic] == shown || "\"\(snapshot[topic] ?? "")\"" == shown,
                    "\(topic): \(snapshot[topic] ?? "nil") vs \(shown ?? "nil")")
            }
        }
        await live.stop()
    }

    @Test(
        "an empty Manufacturer stays on the broker as \"\"; every listed topic is there, and a reconnect republishes what the broker holds"
    )
    func emptyString() async throws {
        let live = try await LiveGateway.start(run: false)
        try await live.accessory.setValue(accessory: "Light", characteristic: "Manufacturer", value: .string(""))
        try live.gateway.start()
        try await live.waitUntilOnline()
        #expect(try await live.retained("hap2mqtt/light/accessory_information/manufacturer") == "\"\"")
        let list = try await live.accessoryList()
        let listed = list.flatMap(\.services).flatMap(\.characteristics).filter {
            $0.isReadable && $0.slug != "programmable_switch_event"
        }.map(\.topic)
        let snapshot = try await live.retainedSnapshot()
        let missing = listed.filter { snapshot[$0] == nil }
        #expect(missing.isEmpty, "listed in bridge/accessories, not on the broker: \(missing)")

        await live.broker.kill()
        try await live.broker.restart()
        try await eventually("the republish after the broker restart", timeout: .seconds(30)) {
            live.gateway.log.contains("republishing")
        }
        let line = try #require(live.gateway.log.split(separator: "\n").last { $0.contains("republishing") })
        let count = try #require(line.split(separator: " ").compactMap { Int($0) }.first, "\(line)")
        try await eventually("the broker to hold every republished topic", timeout: .seconds(30)) {
            try await live.retainedSnapshot(["hap2mqtt/#", "homeassistant/#"], includingHealth: true).count == count
        }
        await live.stop()
    }
}
