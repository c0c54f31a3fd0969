import Foundation
import HAP2MQTTTesting
import HomeModel
import MQTT
import Testing

/// Scenes and groups through the real binary, a real mosquitto and two HAP-python bridges
/// (docs/scenes-and-groups.md): what a user sees on MQTT, and what each accessory was asked to do.
@Suite("hap2mqtt run: scenes and groups across two bridges", .serialized)
struct LiveScenesTests {
    /// The broker, two bridges (HAP-python's default six accessories each), the gateway paired with both,
    /// and an observer of `hap2mqtt/#`.
    struct TwoBridges: Stoppable {
        let broker: MosquittoBroker
        let first: HAPPythonAccessory
        let second: HAPPythonAccessory
        let gateway: GatewayProcess
        let observer: MQTTTestClient

        static func start() async throws -> TwoBridges {
            let broker = try await MosquittoBroker()
            let first = try await HAPPythonAccessory.start()
            let second = try await HAPPythonAccessory.start()
            let gateway = try GatewayProcess(brokerURL: broker.url)
            try await LiveGateway.pair(gateway, with: first)
            try await LiveGateway.pair(gateway, with: second)
            let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/#"])
            let bridges = TwoBridges(broker: broker, first: first, second: second, gateway: gateway, observer: observer)
            try await bridges.run()
            return bridges
        }

        /// Starts `hap2mqtt run` and waits until it is online.
        func run() async throws {
            await observer.clear()
            try gateway.start()
            do {
                _ = try await observer.waitFor(topic: "hap2mqtt/bridge/state", timeout: .seconds(60)) {
                    $0.payloadString?.contains(#""state":"online""#) == true
                }
            } catch {
                throw TestSupportError.timedOut("\(error)\n--- hap2mqtt log ---\n\(gateway.log.suffix(3000))")
            }
        }

        /// The slug of `accessory` (a fixture name) on `bridge`, from `bridge/accessories`.
        func slug(_ accessory: String, on bridge: HAPPythonAccessory) async throws -> String {
            let status = try await bridge.status()
            let aid = try #require(status.accessories[accessory], "\(accessory) is not on the bridge")
            let id = "\(status.pairingID.uppercased())/\(aid)"
            let message = try #require(try await observer.retained("hap2mqtt/bridge/accessories"))
            let list = try #require(try JSONSerialization.jsonObject(with: Data(message.payload)) as? [[String: Any]])
            let entry = try #require(list.first { $0["id"] as? String == id }, "\(id) is not listed")
            return try #require(entry["slug"] as? String)
        }

        /// Publishes a bridge request and returns its answer's JSON object.
        func request(_ command: String, _ payload: String) async throws -> [String: Any] {
            await observer.clear()
            try await observer.publish("hap2mqtt/bridge/request/\(command)", payload)
            let answer = try await observer.waitFor(topic: "hap2mqtt/bridge/response/\(command)", timeout: .seconds(60))
            return try #require(jsonObject(answer.payloadString), "\(answer.payloadString ?? "")")
        }

        /// Publishes a group's command and returns its one answer's JSON object.
        func setGroup(_ group: String, _ payload: String) async throws -> [String: Any] {
            await observer.clear()
            try await observer.publish("hap2mqtt/groups/\(group)/set", payload)
            let answer = try await observer.waitFor(topic: "hap2mqtt/groups/\(group)/set/result", timeout: .seconds(60))
            return try #require(jsonObject(answer.payloadString), "\(answer.payloadString ?? "")")
        }

        func stop() async {
            await gateway.stop()
            await observer.disconnect()
            await first.stop()
            await second.stop()
            await broker.stop()
        }
    }

    @Test(
        "a scene is stored, checked, recalled with one write request per bridge and one answer; a group aggregates and fans out; bad input changes nothing"
    )
    func scenesAndGroups() async throws {
        try await withStopping(try await TwoBridges.start()) { home in try await Self.scenesAndGroups(home) }
    }

    private static func scenesAndGroups(_ home: TwoBridges) async throws {
        let lightA = try await home.slug("Light", on: home.first)
        let switchA = try await home.slug("Switch", on: home.first)
        let lightB = try await home.slug("Light", on: home.second)
        let blindB = try await home.slug("Blind", on: home.second)
        let switchB = try await home.slug("Switch", on: home.second)

        // Stored from explicit values, every one checked.
        let evening = """
            {"name":"Evening","values":{"\(lightA)":{"lightbulb":{"on":true,"brightness":30}},\
            "\(switchA)":{"switch":{"on":true}},"\(lightB)":{"lightbulb":{"on":true,"brightness":70}},\
            "\(blindB)":{"window_covering":{"target_position":40}}}}
            """
        let stored = try await home.request("scene_store", evening)
        #expect(stored["status"] as? String == "ok", "\(stored)")
        _ = try await home.observer.waitFor(topic: "hap2mqtt/bridge/scenes") {
            $0.payloadString?.contains(#""slug":"evening""#) == true
        }

        // Wrong names and values: one answer with every reason, nothing stored.
        let bad = try await home.request(
            "scene_store",
            #"{"name":"Bad","values":{"\#(lightA)":{"lightbulb":{"brightness":150,"volume":3}},"nowhere":{"switch":{"on":true}}}}"#
        )
        #expect(bad["status"] as? String == "error")
        let why = bad["error"] as? String ?? ""
        #expect(why.contains(#"no accessory "nowhere""#), "\(why)")
        #expect(why.contains("\(lightA)/lightbulb/brightness"), "\(why)")
        #expect(why.contains("no characteristic volume"), "\(why)")
        let duplicate = try await home.request("scene_store", #"{"name":"evening","accessories":["\#(lightA)"]}"#)
        #expect((duplicate["error"] as? String)?.contains("exists already") == true, "\(duplicate)")
        let scenes = try await home.observer.retained("hap2mqtt/bridge/scenes")?.payloadString ?? ""
        #expect(!scenes.contains("bad") && scenes.contains("evening"), "\(scenes)")

        // The recall: one answer, every outcome, each bridge written in one request.
        let firstBefore = home.first.setterCalls.count
        let secondBefore = home.second.setterCalls.count
        let recalled = try await home.request("scene_recall", #"{"scene":"Evening","transaction":7}"#)
        #expect(recalled["status"] as? String == "ok", "\(recalled)")
        #expect(recalled["transaction"] as? Int == 7)
        let data = try #require(recalled["data"] as? [String: Any])
        let results = try #require(data["results"] as? [String: [String: [String: [String: Any]]]])
        #expect(results[lightB]?["lightbulb"]?["brightness"]?["value"] as? Int == 70, "\(results)")
        #expect(results[blindB]?["window_covering"]?["target_position"]?["status"] as? String == "ok")
        #expect((data["missing"] as? [Any])?.isEmpty == true)
        _ = try await home.first.waitForSetterCalls(count: firstBefore + 3)
        _ = try await home.second.waitForSetterCalls(count: secondBefore + 3)
        let firstWrites = Array(home.first.setterCalls[firstBefore...])
        #expect(
            Set(firstWrites) == [
                .init(accessory: "Light", characteristic: "On", value: .bool(true)),
                .init(accessory: "Light", characteristic: "Brightness", value: .int(30)),
                .init(accessory: "Switch", characteristic: "On", value: .bool(true)),
            ])
        #expect(!home.first.setterRequests.contains(nil) && !home.second.setterRequests.contains(nil))
        #expect(Set(home.first.setterRequests[firstBefore...]).count == 1, "the first bridge got more than one request")
        #expect(
            Set(home.second.setterRequests[secondBefore...]).count == 1, "the second bridge got more than one request")
        #expect(
            home.second.setterCalls[secondBefore...].contains(
                .init(accessory: "Blind", characteristic: "TargetPosition", value: .int(40))))

        // A group of mixed kinds, and one of lights.
        let mixed = try await home.request("group_add", #"{"name":"Mixed","members":["\#(lightA)","\#(switchB)"]}"#)
        #expect((mixed["error"] as? String)?.contains("one kind") == true, "\(mixed)")
        let added = try await home.request("group_add", #"{"name":"All lights","members":["\#(lightA)","\#(lightB)"]}"#)
        #expect(added["status"] as? String == "ok", "\(added)")
        _ = try await home.observer.waitFor(topic: "hap2mqtt/groups/all_lights") {
            $0.payloadString == #"{"state":"ON","brightness":50}"#
        }
        #expect(
            try await home.observer.retained("hap2mqtt/groups/all_lights")?.payloadString
                == #"{"state":"ON","brightness":50}"#)
        let again = try await home.request("group_add", #"{"name":"All Lights","members":["\#(lightA)"]}"#)
        #expect((again["error"] as? String)?.contains("exists already") == true, "\(again)")

        // The group's command: fanned out, answered once; its state follows the accessories.
        let off = try await home.setGroup("all_lights", #"{"state":"OFF"}"#)
        #expect(off["status"] as? String == "ok", "\(off)")
        _ = try await home.observer.waitFor(topic: "hap2mqtt/groups/all_lights") {
            $0.payloadString == #"{"state":"OFF","brightness":50}"#
        }
        #expect(try await home.first.value(accessory: "Light", characteristic: "On") == .bool(false))
        #expect(try await home.second.value(accessory: "Light", characteristic: "On") == .bool(false))
        await home.observer.clear()
        _ = try await home.second.setValue(accessory: "Light", characteristic: "On", value: .bool(true))
        _ = try await home.observer.waitFor(topic: "hap2mqtt/groups/all_lights") {
            $0.payloadString == #"{"state":"ON","brightness":70}"#
        }
        let countBefore = home.first.setterCalls.count + home.second.setterCalls.count
        let tooBright = try await home.setGroup("all_lights", #"{"brightness":150}"#)
        #expect(tooBright["status"] as? String == "error")
        #expect((tooBright["error"] as? String)?.contains("from 0 to 100") == true, "\(tooBright)")
        #expect(home.first.setterCalls.count + home.second.setterCalls.count == countBefore)

        // An accessory removed since the scene was stored: the rest is recalled, the missing reported.
        _ = try await home.first.removeAccessory("Switch")
        let refreshed = try await home.request("refresh", #"{"accessory":"\#(lightA)"}"#)
        #expect(refreshed["status"] as? String == "ok", "\(refreshed)")
        try await eventually("\(switchA) gone from bridge/accessories", timeout: .seconds(30)) {
            guard let list = try? await home.observer.retained("hap2mqtt/bridge/accessories"),
                let entries = (try? JSONSerialization.jsonObject(with: Data(list.payload))) as? [[String: Any]]
            else { return false }
            return !entries.contains { $0["slug"] as? String == switchA }
        }
        let partial = try await home.request("scene_recall", #"{"scene":"evening"}"#)
        #expect(partial["status"] as? String == "error", "\(partial)")
        let partialData = try #require(partial["data"] as? [String: Any])
        #expect(partialData["missing"] as? [String] == ["\(switchA)/switch/on"], "\(partialData)")
        #expect((partial["error"] as? String)?.contains("\(switchA)/switch/on") == true)
        let partialResults = try #require(partialData["results"] as? [String: Any])
        #expect(Set(partialResults.keys) == [lightA, lightB, blindB], "\(partialResults)")
        _ = try await home.observer.waitFor(topic: "hap2mqtt/groups/all_lights") {
            $0.payloadString == #"{"state":"ON","brightness":50}"#
        }

        // Kept in the state directory: a value edited out of range by hand refuses the whole recall.
        await home.gateway.stop()
        let file = home.gateway.stateDirectory.appendingPathComponent("scenes.json")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains(#""value":30"#), "\(text)")
        try TestFile.write(text.replacingOccurrences(of: #""value":30"#, with: #""value":150"#), to: file)
        try await home.run()
        let kept = try await home.observer.retained("hap2mqtt/bridge/groups")?.payloadString ?? ""
        #expect(kept.contains(#""slug":"all_lights""#), "\(kept)")
        let before = home.first.setterCalls.count + home.second.setterCalls.count
        let refused = try await home.request("scene_recall", #"{"scene":"evening"}"#)
        #expect((refused["error"] as? String)?.contains("nothing was written") == true, "\(refused)")
        #expect((refused["error"] as? String)?.contains("\(lightA)/lightbulb/brightness") == true, "\(refused)")
        #expect(home.first.setterCalls.count + home.second.setterCalls.count == before)

        // Renamed, then removed.
        let renamed = try await home.request("scene_rename", #"{"scene":"evening","to":"Late evening"}"#)
        #expect((renamed["data"] as? [String: Any])?["scene"] as? String == "late_evening", "\(renamed)")
        let removed = try await home.request("scene_remove", #"{"scene":"late_evening"}"#)
        #expect(removed["status"] as? String == "ok", "\(removed)")
        _ = try await home.observer.waitFor(topic: "hap2mqtt/bridge/scenes") { $0.payloadString == "[]" }
        let unknown = try await home.request("scene_recall", #"{"scene":"evening"}"#)
        #expect((unknown["error"] as? String)?.contains(#"no scene "evening""#) == true, "\(unknown)")
        let groupGone = try await home.request("group_remove", #"{"group":"all_lights"}"#)
        #expect(groupGone["status"] as? String == "ok", "\(groupGone)")
        _ = try await home.observer.waitFor(topic: "hap2mqtt/groups/all_lights") { $0.payload.isEmpty }
    }
}

private func jsonObject(_ text: String?) -> [String: Any]? {
    guard let text else { return nil }
    return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
}
