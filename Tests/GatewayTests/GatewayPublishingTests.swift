import Foundation
import Gateway
import HAP2MQTTTesting
import HomeModel
import HomeStore
import MQTT
import SystemSupport
import Testing

@Suite("Gateway: what it publishes")
struct GatewayPublishingTests {
    @Test("nothing is published before the store has finished its first sync")
    func nothingBeforeReady() async throws {
        let h = try await GatewayHarness(autoSync: false)
        let early = await h.observer.firstMessage(on: "hap2mqtt/#", within: .milliseconds(800))
        #expect(early == nil)
        h.provider.completeSync()
        try await h.waitUntilOnline()
        await h.stop()
    }

    @Test("every readable characteristic has its retained topic with the accessory's value")
    func retainedState() async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        let retained = try await h.allRetained()
        let topics = try await h.stateTopics()
        var checked = 0
        for accessory in h.provider.accessories {
            for c in accessory.allCharacteristics where c.isReadable && c.type != .Characteristic.programmableSwitchEvent {
                let value = try #require(c.value)
                let topic = try #require(topics[CharacteristicAddress(accessory: accessory.id, iid: c.iid)])
                #expect(retained[topic] == value.description, "\(topic)")
                checked += 1
            }
        }
        #expect(checked > 30)
        #expect(try await h.observer.retained("hap2mqtt/kitchen_lamp/lightbulb/brightness")?.payloadString == "0")
        #expect(try await h.observer.retained("hap2mqtt/kitchen_lamp/availability")?.payloadString == "online")
        #expect(try await h.observer.retained("hap2mqtt/bridge/state")?.payloadString == #"{"state":"online"}"#)
        await h.stop()
    }

    @Test("the accessory JSON topic holds every readable value by service and characteristic")
    func accessoryJSON() async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        let message = try #require(try await h.observer.retained("hap2mqtt/kitchen_lamp"))
        let json = try #require(jsonObject(message))
        let light = try #require(json["lightbulb"] as? [String: Any])
        #expect(light["on"] as? Bool == false)
        #expect(light["brightness"] as? Int == 0)
        let info = try #require(json["accessory_information"] as? [String: Any])
        #expect(info["name"] as? String == "Kitchen Lamp")
        #expect(info["identify"] == nil, "write-only characteristics have no value to show")
        await h.stop()
    }

    @Test("bridge/accessories lists each accessory with slugs, topics and metadata")
    func accessoryList() async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        let message = try #require(try await h.observer.retained("hap2mqtt/bridge/accessories"))
        let list = try #require((try JSONSerialization.jsonObject(with: Data(message.payload))) as? [[String: Any]])
        #expect(list.count == 4)
        let lamp = try #require(list.first { $0["slug"] as? String == "kitchen_lamp" })
        #expect(lamp["id"] as? String == "00:00:00:00:00:01/2")
        #expect(lamp["name"] as? String == "Kitchen Lamp")
        #expect(lamp["reachable"] as? Bool == true)
        let services = try #require(lamp["services"] as? [[String: Any]])
        let bulb = try #require(services.first { $0["slug"] as? String == "lightbulb" })
        let brightness = try #require((bulb["characteristics"] as? [[String: Any]])?.first { $0["slug"] as? String == "brightness" })
        #expect(brightness["topic"] as? String == "hap2mqtt/kitchen_lamp/lightbulb/brightness")
        #expect(brightness["unit"] as? String == "percentage")
        #expect(brightness["max"] as? Double == 100)
        #expect(brightness["perms"] as? [String] == ["pr", "pw", "ev"])
        let door = try #require(list.first { $0["slug"] as? String == "front_door" })
        let lockTarget = try #require(((door["services"] as? [[String: Any]])?.first { $0["slug"] as? String == "lock_mechanism" }?["characteristics"] as? [[String: Any]])?.first { $0["slug"] as? String == "lock_target_state" })
        #expect(lockTarget["valid_values"] as? [String: Int] == ["Secured": 1, "Unsecured": 0])
        await h.stop()
    }

    @Test("bridge/state online is the last message of the first batch; an hs topic goes with its light's values")
    func onlineLast() async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        try await Task.sleep(for: .milliseconds(300))
        let topics = await h.observer.allMessages.map(\.topic)
        let hs = try #require(topics.firstIndex(of: "hap2mqtt/kitchen_lamp/lightbulb/hs"))
        let json = try #require(topics.firstIndex(of: "hap2mqtt/kitchen_lamp"))
        #expect(hs < json, "the hs topic goes with the lamp's values, before its JSON and bridge/accessories")
        #expect(topics.last == "hap2mqtt/bridge/state", "after online: \(topics.drop { $0 != "hap2mqtt/bridge/state" })")
        await h.stop()
    }

    @Test("bridge/info says the version, the base topic and the configured homes with their rooms")
    func bridgeInfo() async throws {
        let homes = [
            Home(name: "Flat", rooms: [Room(name: "Kitchen"), Room(name: "Hall \"East\"")]),
            Home(name: "Cabin"),
        ]
        let h = try await GatewayHarness(homes: homes)
        try await h.waitUntilOnline()
        let infoMessage = try #require(try await h.observer.retained("hap2mqtt/bridge/info"))
        let info = try #require(jsonObject(infoMessage))
        #expect(info["version"] as? String == "test")
        #expect(info["base_topic"] as? String == "hap2mqtt")
        let published = try #require(info["homes"] as? [[String: Any]])
        #expect(published.map { $0["name"] as? String } == ["Flat", "Cabin"])
        #expect(published.map { $0["rooms"] as? [String] } == [["Kitchen", "Hall \"East\""], []])
        await h.stop()
    }

    @Test("a value changed by the accessory is published retained, once, and the JSON follows")
    func valueChange() async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        await h.observer.clear()
        h.provider.changeValue(h.address(aid: 2, .Characteristic.brightness), to: .int(40))
        let m = try await h.observer.waitFor(topic: "hap2mqtt/kitchen_lamp/lightbulb/brightness")
        #expect(m.payloadString == "40" && m.retain == false)  // live delivery carries no retain flag
        let json = try await h.observer.waitFor(topic: "hap2mqtt/kitchen_lamp") { jsonObject($0) != nil }
        #expect((jsonObject(json)?["lightbulb"] as? [String: Any])?["brightness"] as? Int == 40)
        #expect(try await h.observer.retained("hap2mqtt/kitchen_lamp/lightbulb/brightness")?.payloadString == "40")
        h.provider.changeValue(h.address(aid: 2, .Characteristic.brightness), to: .int(40))
        let again = await h.observer.firstMessage(on: "hap2mqtt/kitchen_lamp/lightbulb/brightness", within: .milliseconds(500)) { $0.payloadString == "40" && $0 != m }
        #expect(again == nil || again == m, "an unchanged value is not published again")
        await h.stop()
    }

    @Test("a button press goes out unretained and only for a real event")
    func statelessEvents() async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        let topic = "hap2mqtt/porch_button/stateless_programmable_switch/programmable_switch_event"
        #expect(try await h.observer.retained(topic) == nil)
        let address = h.address(aid: 5, .Characteristic.programmableSwitchEvent)
        h.provider.changeValue(address, to: .int(0), source: .event)
        h.provider.changeValue(address, to: .int(0), source: .event)
        try await eventuallyCount(h.observer, topic, 2)
        #expect(await h.observer.messages(on: topic).allSatisfy { $0.payloadString == "0" })
        #expect(try await h.observer.retained(topic) == nil)
        h.provider.changeValue(address, to: .int(1), source: .poll)
        #expect(await h.observer.firstMessage(on: topic, within: .milliseconds(500)) { $0.payloadString == "1" } == nil)
        await h.stop()
    }

    @Test("availability follows reachability, with a bridge event")
    func availability() async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        let id = AccessoryID(serverID: GatewayHarness.serverID, aid: 3)
        h.provider.setReachable([id], false)
        _ = try await h.observer.waitFor(topic: "hap2mqtt/front_door/availability") { $0.payloadString == "offline" }
        let event = try await h.observer.waitFor(topic: "hap2mqtt/bridge/event") { jsonObject($0)?["type"] as? String == "availability" }
        let data = try #require(jsonObject(event)?["data"] as? [String: Any])
        #expect(data["accessory"] as? String == "front_door" && data["state"] as? String == "offline")
        #expect(try await h.observer.retained("hap2mqtt/front_door/availability")?.payloadString == "offline")
        h.provider.setReachable([id], true)
        _ = try await h.observer.waitFor(topic: "hap2mqtt/front_door/availability") { $0.payloadString == "online" }
        await h.stop()
    }

    @Test("an accessory removed by its provider has every retained topic cleared")
    func removal() async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        #expect(try await h.observer.retained("hap2mqtt/front_door/lock_mechanism/lock_current_state") != nil)
        h.provider.remove(aid: 3)
        let event = try await h.observer.waitFor(topic: "hap2mqtt/bridge/event") { jsonObject($0)?["type"] as? String == "accessory_removed" }
        #expect((jsonObject(event)?["data"] as? [String: Any])?["accessory"] as? String == "front_door")
        for topic in ["hap2mqtt/front_door", "hap2mqtt/front_door/availability", "hap2mqtt/front_door/lock_mechanism/lock_current_state",
                      "hap2mqtt/front_door/lock_mechanism/lock_target_state", "hap2mqtt/front_door/accessory_information/name"] {
            #expect(try await h.observer.retained(topic) == nil, "\(topic) is still retained")
        }
        let list = try #require(try await h.observer.retained("hap2mqtt/bridge/accessories"))
        #expect(!(list.payloadString ?? "").contains("front_door"))
        #expect(try await h.observer.retained("hap2mqtt/kitchen_lamp/availability")?.payloadString == "online")
        await h.stop()
    }

    @Test("an accessory that comes back gets its old slug; a new one with the same name gets _2")
    func slugsAreStable() async throws {
        let dir = StateDirectory(path: NSTemporaryDirectory() + "hap2mqtt-slugs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: dir.path) }
        let h = try await GatewayHarness(stateDirectory: dir)
        try await h.waitUntilOnline()
        h.provider.add(InMemoryAccessoryProvider.accessory(aid: 9, name: "Kitchen Lamp", services: [.Service.lightbulb]))
        _ = try await h.observer.waitFor(topic: "hap2mqtt/kitchen_lamp_2/availability")
        var renamed = InMemoryAccessoryProvider.accessory(aid: 2, name: "Küche Lampe", services: [.Service.lightbulb])
        renamed.services[0].characteristics[3].value = .string("Küche Lampe")
        h.provider.update(renamed)
        let event = try await h.observer.waitFor(topic: "hap2mqtt/bridge/event") { jsonObject($0)?["type"] as? String == "accessory_renamed" }
        #expect((jsonObject(event)?["data"] as? [String: Any])?["accessory"] as? String == "kitchen_lamp")
        let saved = try #require(try dir.read("slugs.json"))
        #expect(String(decoding: saved, as: UTF8.self).contains("kitchen_lamp_2"))
        await h.stop()
    }
}

func eventuallyCount(_ observer: MQTTTestClient, _ topic: String, _ count: Int, timeout: Duration = .seconds(5)) async throws {
    let deadline = ContinuousClock.now + timeout
    while await observer.messages(on: topic).count < count {
        guard ContinuousClock.now < deadline else {
            throw TestSupportError.timedOut("expected \(count) messages on \(topic), got \(await observer.messages(on: topic).count)")
        }
        try await Task.sleep(for: .milliseconds(20))
    }
}

extension GatewayHarness {
    /// Every retained message under the base topic, read by a fresh client: topic → payload.
    func allRetained(under filters: [String] = ["hap2mqtt/#"]) async throws -> [String: String] {
        let probe = try await MQTTTestClient.connect(to: broker, subscribe: [])
        let marker = "hap2mqtt-test/marker/\(UUID().uuidString)"
        try await probe.subscribe(filters + [marker])
        try await probe.publish(marker, "marker")
        _ = try await probe.waitFor(topic: marker)
        var out: [String: String] = [:]
        for m in await probe.allMessages where m.retain && m.topic != marker { out[m.topic] = m.payloadString }
        await probe.disconnect()
        return out
    }

    /// The state topic of every characteristic, as bridge/accessories announces them.
    func stateTopics() async throws -> [CharacteristicAddress: String] {
        let message = try #require(try await observer.retained("hap2mqtt/bridge/accessories"))
        let list = (try JSONSerialization.jsonObject(with: Data(message.payload))) as? [[String: Any]] ?? []
        var out: [CharacteristicAddress: String] = [:]
        for entry in list {
            guard let id = (entry["id"] as? String).flatMap(AccessoryID.init) else { continue }
            for service in entry["services"] as? [[String: Any]] ?? [] {
                for c in service["characteristics"] as? [[String: Any]] ?? [] {
                    if let iid = c["iid"] as? Int, let topic = c["topic"] as? String {
                        out[CharacteristicAddress(accessory: id, iid: iid)] = topic
                    }
                }
            }
        }
        return out
    }
}
