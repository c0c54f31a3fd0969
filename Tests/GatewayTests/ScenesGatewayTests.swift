import Foundation
import HAP2MQTTTesting
import HomeModel
import MQTT
import Testing

@testable import Gateway

/// Scenes and groups on the in-memory provider and the recording client (docs/scenes-and-groups.md): a
/// scene from an accessory's current state, its Home Assistant entity, a group's entity and its
/// `group_set`, and what removing them clears.
@Suite("Gateway: scenes and groups, their Home Assistant entities")
struct ScenesGatewayTests {
    static let node = "hap2mqtt_bridge_hap2mqtt"

    /// Publishes a bridge request and returns its answer's JSON object.
    static func request(_ h: GatewayHarness, _ command: String, _ payload: String) async throws -> [String: Any] {
        let mark = h.mqtt.published.count
        try await h.send("hap2mqtt/bridge/request/\(command)", payload)
        let answer = try await h.waitFor(topic: "hap2mqtt/bridge/response/\(command)", after: mark)
        return try #require(jsonObject(answer), "\(answer.payloadString ?? "")")
    }

    /// The last payload published on `topic`, nil when none.
    static func last(_ h: GatewayHarness, _ topic: String) -> MQTTMessage? {
        h.mqtt.published.last { $0.topic == topic }
    }

    @Test("a scene stored from an accessory's state brings it back, and is a scene entity until removed")
    func sceneFromState() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let on = h.address(aid: 2, .Characteristic.on)
            let brightness = h.address(aid: 2, .Characteristic.brightness)
            h.provider.changeValues([(on, .bool(true)), (brightness, .int(35))])
            try await eventually("the lamp's brightness published") {
                Self.last(h, "hap2mqtt/kitchen_lamp/lightbulb/brightness")?.payloadString == "35"
            }
            let stored = try await Self.request(h, "scene_store", #"{"name":"Dinner","accessories":["kitchen_lamp"]}"#)
            #expect(stored["status"] as? String == "ok", "\(stored)")
            let data = try #require(stored["data"] as? [String: Any])
            #expect(data["slug"] as? String == "dinner")
            #expect(data["accessories"] as? [String] == ["kitchen_lamp"])
            let config = try #require(Self.last(h, "homeassistant/scene/\(Self.node)/scene_dinner/config"))
            #expect(config.retain)
            let entity = try #require(jsonObject(config))
            #expect(entity["command_topic"] as? String == "hap2mqtt/bridge/request/scene_recall")
            #expect(entity["payload_on"] as? String == #"{"scene":"dinner"}"#)
            #expect(entity["unique_id"] as? String == "\(Self.node)_scene_dinner")

            h.provider.changeValues([(on, .bool(false)), (brightness, .int(90))])
            try await eventually("the lamp's new brightness published") {
                Self.last(h, "hap2mqtt/kitchen_lamp/lightbulb/brightness")?.payloadString == "90"
            }
            let writesBefore = h.provider.writes.count
            let recalled = try await Self.request(h, "scene_recall", #"{"scene":"Dinner"}"#)
            #expect(recalled["status"] as? String == "ok", "\(recalled)")
            #expect(h.provider.writes.count == writesBefore + 1, "one request for the accessory's server")
            #expect(h.provider.value(at: on) == .bool(true))
            #expect(h.provider.value(at: brightness) == .int(35))

            let removed = try await Self.request(h, "scene_remove", #"{"scene":"dinner"}"#)
            #expect(removed["status"] as? String == "ok")
            #expect(Self.last(h, "homeassistant/scene/\(Self.node)/scene_dinner/config")?.payload.isEmpty == true)
            #expect(Self.last(h, "hap2mqtt/bridge/scenes")?.payloadString == "[]")
        }
    }

    @Test("a group of lights is one light entity; group_set writes every member; removing it clears both")
    func groupEntity() async throws {
        let lamps = [
            InMemoryAccessoryProvider.accessory(aid: 2, name: "Kitchen Lamp", services: [.Service.lightbulb]),
            InMemoryAccessoryProvider.accessory(aid: 3, name: "Desk Lamp", services: [.Service.lightbulb]),
        ]
        try await withGatewayHarness(accessories: lamps) { h in
            try await h.waitUntilOnline()
            let added = try await Self.request(
                h, "group_add", #"{"name":"Lights","members":["kitchen_lamp","desk_lamp/lightbulb"]}"#)
            #expect(added["status"] as? String == "ok", "\(added)")
            let config = try #require(Self.last(h, "homeassistant/light/\(Self.node)/group_lights/config"))
            let entity = try #require(jsonObject(config))
            #expect(entity["state_topic"] as? String == "hap2mqtt/groups/lights")
            #expect(entity["command_topic"] as? String == "hap2mqtt/groups/lights/set")
            #expect(entity["brightness_command_topic"] as? String == "hap2mqtt/groups/lights/set")
            #expect(entity["brightness_command_template"] as? String == #"{"brightness": {{ value }}}"#)
            #expect(entity["brightness_scale"] as? Int == 100)
            #expect(Self.last(h, "hap2mqtt/groups/lights")?.retain == true)

            let set = try await Self.request(h, "group_set", #"{"group":"lights","state":"ON","brightness":60}"#)
            #expect(set["status"] as? String == "ok", "\(set)")
            for aid in [2, 3] {
                #expect(h.provider.value(at: h.address(aid: aid, .Characteristic.on)) == .bool(true))
                #expect(h.provider.value(at: h.address(aid: aid, .Characteristic.brightness)) == .int(60))
            }
            try await eventually("the group's state follows") {
                Self.last(h, "hap2mqtt/groups/lights")?.payloadString == #"{"state":"ON","brightness":60}"#
            }
            let listed = try await Self.request(h, "group_list", "{}")
            let groups = try #require(listed["data"] as? [[String: Any]])
            #expect(groups.first?["members"] as? [String] == ["kitchen_lamp/lightbulb", "desk_lamp/lightbulb"])

            let removed = try await Self.request(h, "group_remove", #"{"group":"Lights"}"#)
            #expect(removed["status"] as? String == "ok")
            #expect(Self.last(h, "homeassistant/light/\(Self.node)/group_lights/config")?.payload.isEmpty == true)
            #expect(Self.last(h, "hap2mqtt/groups/lights")?.payload.isEmpty == true)
            #expect(Self.last(h, "hap2mqtt/bridge/groups")?.payloadString == "[]")
        }
    }

    @Test("group_add refuses unknown, repeated and unfit members and a taken name, each reason named, nothing added")
    func groupRefusals() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let bad = try await Self.request(
                h, "group_add",
                #"{"name":"Odd","members":["kitchen_lamp","kitchen_lamp/lightbulb","nobody","front_door","kitchen_lamp/nope"]}"#
            )
            #expect(bad["status"] as? String == "error")
            #expect(
                bad["error"] as? String
                    == #"kitchen_lamp/lightbulb is listed twice; no accessory "nobody"; front_door has no light, switch, outlet or cover; "kitchen_lamp/nope" is no light, switch, outlet or cover service"#
            )
            let empty = try await Self.request(h, "group_add", #"{"name":"Empty","members":[]}"#)
            #expect((empty["error"] as? String)?.hasPrefix("list the group's members") == true, "\(empty)")
            let ok = try await Self.request(h, "group_add", #"{"name":"Lamp","members":["kitchen_lamp"]}"#)
            #expect(ok["status"] as? String == "ok", "\(ok)")
            let taken = try await Self.request(h, "group_add", #"{"name":"lamp","members":["kitchen_lamp"]}"#)
            #expect(
                taken["error"] as? String
                    == #"a group named lamp exists already; remove it first, or send "replace":true to replace it"#)
            let listed = try await Self.request(h, "group_list", "{}")
            #expect((listed["data"] as? [[String: Any]])?.map { $0["slug"] as? String } == ["lamp"])
            let unknown = try await Self.request(h, "scene_recall", #"{"scene":"nothing"}"#)
            #expect(unknown["error"] as? String == #"no scene "nothing"; the scenes are none yet"#)
        }
    }
}
