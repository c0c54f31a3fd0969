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
    @Test("nothing is published and no command is taken before the store has finished its first sync")
    func nothingBeforeReady() async throws {
        try await withGatewayHarness(autoSync: false) { h in
            #expect(await !h.store.isReady)
            h.provider.changeValue(h.address(aid: 2, .Characteristic.brightness), to: .int(40))
            // The gateway waits for the store: it has not even subscribed, so no command can reach it.
            #expect(throws: TestSupportError.self) {
                try h.mqtt.deliver("hap2mqtt/kitchen_lamp/lightbulb/on/set", "true")
            }
            #expect(h.mqtt.published.isEmpty && h.mqtt.subscriptions.isEmpty)
            h.provider.completeSync()
            try await h.waitUntilOnline()
            #expect(h.mqtt.retained("hap2mqtt/kitchen_lamp/lightbulb/brightness")?.payloadString == "40")
        }
    }

    @Test("every readable characteristic has its retained topic with the accessory's value")
    func retainedState() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let retained = h.mqtt.retained(under: "hap2mqtt/#")
            let topics = try h.stateTopics()
            var checked = 0
            for accessory in h.provider.accessories {
                for c in accessory.allCharacteristics
                where c.isReadable && c.type != .Characteristic.programmableSwitchEvent {
                    let value = try #require(c.value)
                    let topic = try #require(topics[CharacteristicAddress(accessory: accessory.id, iid: c.iid)])
                    #expect(retained[topic] == value.description, "\(topic)")
                    checked += 1
                }
            }
            #expect(checked > 30)
            #expect(retained["hap2mqtt/kitchen_lamp/lightbulb/brightness"] == "0")
            #expect(retained["hap2mqtt/kitchen_lamp/availability"] == "online")
            #expect(retained["hap2mqtt/bridge/state"] == #"{"state":"online"}"#)
            #expect(h.mqtt.subscriptions["hap2mqtt/+/+/+/set"]?.retainAsPublished == true)
            #expect(
                Set(h.mqtt.subscriptions.keys) == [
                    "hap2mqtt/+/+/+/set", "hap2mqtt/+/+/+/get", "hap2mqtt/+/set", "hap2mqtt/bridge/request/+",
                    "hap2mqtt/groups/+/set", "homeassistant/status",
                ])
        }
    }

    @Test("the accessory JSON topic holds every readable value by service and characteristic")
    func accessoryJSON() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let message = try #require(h.mqtt.retained("hap2mqtt/kitchen_lamp"))
            let json = try #require(jsonObject(message))
            let light = try #require(json["lightbulb"] as? [String: Any])
            #expect(light["on"] as? Bool == false)
            #expect(light["brightness"] as? Int == 0)
            let info = try #require(json["accessory_information"] as? [String: Any])
            #expect(info["name"] as? String == "Kitchen Lamp")
            #expect(info["identify"] == nil, "write-only characteristics have no value to show")
        }
    }

    @Test("bridge/accessories lists each accessory with slugs, topics and metadata")
    func accessoryList() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let message = try #require(h.mqtt.retained("hap2mqtt/bridge/accessories"))
            let list = try #require((try JSONSerialization.jsonObject(with: Data(message.payload))) as? [[String: Any]])
            #expect(list.count == 4)
            let lamp = try #require(list.first { $0["slug"] as? String == "kitchen_lamp" })
            #expect(lamp["id"] as? String == "00:00:00:00:00:01/2")
            #expect(lamp["name"] as? String == "Kitchen Lamp")
            #expect(lamp["reachable"] as? Bool == true)
            let services = try #require(lamp["services"] as? [[String: Any]])
            let bulb = try #require(services.first { $0["slug"] as? String == "lightbulb" })
            let brightness = try #require(
                (bulb["characteristics"] as? [[String: Any]])?.first { $0["slug"] as? String == "brightness" })
            #expect(brightness["topic"] as? String == "hap2mqtt/kitchen_lamp/lightbulb/brightness")
            #expect(brightness["unit"] as? String == "percentage")
            #expect(brightness["max"] as? Double == 100)
            #expect(brightness["perms"] as? [String] == ["pr", "pw", "ev"])
            let door = try #require(list.first { $0["slug"] as? String == "front_door" })
            let lockTarget = try #require(
                ((door["services"] as? [[String: Any]])?.first { $0["slug"] as? String == "lock_mechanism" }?[
                    "characteristics"] as? [[String: Any]])?.first { $0["slug"] as? String == "lock_target_state" })
            #expect(lockTarget["valid_values"] as? [String: Int] == ["Secured": 1, "Unsecured": 0])
        }
    }

    @Test(
        "the first publication is one batch that ends with bridge/state online; an hs topic goes with its light's values"
    )
    func onlineLast() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let batches = h.mqtt.batches
            #expect(batches.count == 1, "\(batches.map { $0.count })")
            let topics = try #require(batches.first).map(\.topic)
            let hs = try #require(topics.firstIndex(of: "hap2mqtt/kitchen_lamp/lightbulb/hs"))
            let json = try #require(topics.firstIndex(of: "hap2mqtt/kitchen_lamp"))
            #expect(hs < json, "the hs topic goes with the lamp's values, before its JSON and bridge/accessories")
            #expect(topics.last == "hap2mqtt/bridge/state")
            #expect(topics.filter { $0 == "hap2mqtt/bridge/state" }.count == 1)
        }
    }

    @Test("bridge/info says the version, the base topic and the configured homes with their rooms")
    func bridgeInfo() async throws {
        let homes = [
            Home(name: "Flat", rooms: [Room(name: "Kitchen"), Room(name: "Hall \"East\"")]),
            Home(name: "Cabin"),
        ]
        try await withGatewayHarness(homes: homes) { h in
            try await h.waitUntilOnline()
            let info = try #require(h.mqtt.retained("hap2mqtt/bridge/info").flatMap(jsonObject))
            #expect(info["version"] as? String == "test")
            #expect(info["base_topic"] as? String == "hap2mqtt")
            let published = try #require(info["homes"] as? [[String: Any]])
            #expect(published.map { $0["name"] as? String } == ["Flat", "Cabin"])
            #expect(published.map { $0["rooms"] as? [String] } == [["Kitchen", "Hall \"East\""], []])
        }
    }

    @Test("a value changed by the accessory is published retained, once, and the JSON follows")
    func valueChange() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let brightness = h.address(aid: 2, .Characteristic.brightness)
            let mark = h.mqtt.published.count
            h.provider.changeValue(brightness, to: .int(40))
            let json = try await h.waitFor(topic: "hap2mqtt/kitchen_lamp", after: mark)
            #expect((jsonObject(json)?["lightbulb"] as? [String: Any])?["brightness"] as? Int == 40)
            #expect(
                h.mqtt.published.dropFirst(mark).map(\.topic) == [
                    "hap2mqtt/kitchen_lamp/lightbulb/brightness", "hap2mqtt/kitchen_lamp",
                ])
            #expect(h.mqtt.retained("hap2mqtt/kitchen_lamp/lightbulb/brightness")?.payloadString == "40")
            // The same value again, then another change: when that one is out, the first was handled.
            h.provider.changeValue(brightness, to: .int(40))
            h.provider.changeValue(h.address(aid: 2, .Characteristic.on), to: .bool(true))
            try await h.waitFor(topic: "hap2mqtt/kitchen_lamp/lightbulb/on", after: mark)
            #expect(h.mqtt.payloads(on: "hap2mqtt/kitchen_lamp/lightbulb/brightness").suffix(1) == ["40"])
            #expect(
                h.mqtt.published.dropFirst(mark).filter { $0.topic == "hap2mqtt/kitchen_lamp/lightbulb/brightness" }
                    .count == 1,
                "an unchanged value is not published again")
        }
    }

    @Test("a button press goes out unretained and only for a real event")
    func statelessEvents() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let topic = "hap2mqtt/porch_button/stateless_programmable_switch/programmable_switch_event"
            #expect(h.mqtt.messages(on: topic).isEmpty && h.mqtt.retained(topic) == nil)
            let address = h.address(aid: 5, .Characteristic.programmableSwitchEvent)
            h.provider.changeValue(address, to: .int(0), source: .event)
            h.provider.changeValue(address, to: .int(0), source: .event)
            try await eventually("two presses") { h.mqtt.messages(on: topic).count == 2 }
            #expect(h.mqtt.messages(on: topic).allSatisfy { $0.payloadString == "0" && !$0.retain })
            #expect(h.mqtt.retained(topic) == nil)
            let mark = h.mqtt.published.count
            h.provider.changeValue(address, to: .int(1), source: .poll)
            h.provider.changeValue(h.address(aid: 2, .Characteristic.on), to: .bool(true))
            try await h.waitFor(topic: "hap2mqtt/kitchen_lamp/lightbulb/on", after: mark)
            #expect(h.mqtt.messages(on: topic).count == 2, "a polled value is no press")
        }
    }

    @Test("availability follows reachability, with a bridge event")
    func availability() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let id = GatewayFixture.id(3)
            h.provider.setReachable([id], false)
            try await h.mqtt.waitFor(topic: "hap2mqtt/front_door/availability") { $0.payloadString == "offline" }
            let event = try await h.mqtt.waitFor(topic: "hap2mqtt/bridge/event") {
                jsonObject($0)?["type"] as? String == "availability"
            }
            let data = try #require(jsonObject(event)?["data"] as? [String: Any])
            #expect(data["accessory"] as? String == "front_door" && data["state"] as? String == "offline")
            #expect(h.mqtt.retained("hap2mqtt/front_door/availability")?.payloadString == "offline")
            try await eventually("the list says unreachable") {
                h.mqtt.retained("hap2mqtt/bridge/accessories")?.payloadString?.contains(#""slug":"front_door""#) == true
                    && (try? h.accessoryEntry("front_door")?["reachable"] as? Bool) == false
            }
            h.provider.setReachable([id], true)
            try await h.mqtt.waitFor(topic: "hap2mqtt/front_door/availability") { $0.payloadString == "online" }
        }
    }

    @Test("an accessory removed by its provider has every retained topic cleared")
    func removal() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            #expect(h.mqtt.retained("hap2mqtt/front_door/lock_mechanism/lock_current_state") != nil)
            h.provider.remove(aid: 3)
            let event = try await h.mqtt.waitFor(topic: "hap2mqtt/bridge/event") {
                jsonObject($0)?["type"] as? String == "accessory_removed"
            }
            #expect((jsonObject(event)?["data"] as? [String: Any])?["accessory"] as? String == "front_door")
            #expect(h.mqtt.retained(under: "hap2mqtt/front_door/#").isEmpty)
            #expect(h.mqtt.retained(under: "homeassistant/+/hap2mqtt_00_00_00_00_00_01_3/#").isEmpty)
            try await eventually("the list drops it") {
                h.mqtt.retained("hap2mqtt/bridge/accessories")?.payloadString?.contains("front_door") == false
            }
            #expect(h.mqtt.retained("hap2mqtt/kitchen_lamp/availability")?.payloadString == "online")
        }
    }

    @Test("an accessory that comes back gets its old slug; a new one with the same name gets _2")
    func slugsAreStable() async throws {
        let dir = StateDirectory(path: NSTemporaryDirectory() + "hap2mqtt-slugs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: dir.path) }
        try await withGatewayHarness(stateDirectory: dir) { h in
            try await h.waitUntilOnline()
            h.provider.add(
                InMemoryAccessoryProvider.accessory(aid: 9, name: "Kitchen Lamp", services: [.Service.lightbulb]))
            try await h.mqtt.waitFor(topic: "hap2mqtt/kitchen_lamp_2/availability")
            var renamed = InMemoryAccessoryProvider.accessory(
                aid: 2, name: "Küche Lampe", services: [.Service.lightbulb])
            renamed.services[0].characteristics[3].value = .string("Küche Lampe")
            h.provider.update(renamed)
            let event = try await h.mqtt.waitFor(topic: "hap2mqtt/bridge/event") {
                jsonObject($0)?["type"] as? String == "accessory_renamed"
            }
            #expect((jsonObject(event)?["data"] as? [String: Any])?["accessory"] as? String == "kitchen_lamp")
            let saved = try #require(try dir.read("slugs.json"))
            #expect(String(decoding: saved, as: UTF8.self).contains("kitchen_lamp_2"))
            h.provider.remove(aid: 9)
            try await h.mqtt.waitFor(topic: "hap2mqtt/bridge/event") {
                jsonObject($0)?["type"] as? String == "accessory_removed"
            }
            h.provider.add(
                InMemoryAccessoryProvider.accessory(aid: 9, name: "Another Lamp", services: [.Service.lightbulb]))
            try await eventually("it is back under its old slug") {
                h.mqtt.retained("hap2mqtt/kitchen_lamp_2/availability") != nil
            }
        }
    }

    @Test("a characteristic that is no longer readable after an update loses its retained state topic")
    func unreadableAfterUpdate() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let state = "hap2mqtt/kitchen_lamp/lightbulb/on"
            #expect(h.mqtt.retained(state) != nil)
            var updated = InMemoryAccessoryProvider.accessory(
                aid: 2, name: "Kitchen Lamp", services: [.Service.lightbulb])
            let on = try #require(updated.services[1].characteristics.firstIndex { $0.type == .Characteristic.on })
            updated.services[1].characteristics[on].permissions = [.pairedWrite]
            h.provider.update(updated)
            try await eventually("the state topic cleared") { h.mqtt.retained(state) == nil }
            #expect(h.mqtt.retained("hap2mqtt/kitchen_lamp/availability")?.payloadString == "online")
            #expect(h.mqtt.retained("hap2mqtt/kitchen_lamp/lightbulb/brightness") != nil, "the readable ones stay")
        }
    }

    @Test("after a reconnect bridge/state goes first, then the discovery configs, then every other retained message")
    func reconnectRepublishes() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let before = h.mqtt.retained(under: "#")
            h.mqtt.clear()
            await h.mqtt.reconnect { h.mqtt.forgetRetained() }
            #expect(h.mqtt.batches.count == 1)
            let topics = h.mqtt.published.map(\.topic)
            #expect(topics.first == "hap2mqtt/bridge/state")
            let firstState = try #require(
                topics.firstIndex { $0.hasPrefix("hap2mqtt/") && $0 != "hap2mqtt/bridge/state" })
            #expect(
                topics[1..<firstState].allSatisfy { $0.hasPrefix("homeassistant/") }, "every config before any state")
            #expect(h.mqtt.retained(under: "#") == before, "the same retained messages as before, configs included")
        }
    }

    @Test("stop publishes bridge/state offline and waits for it; with the broker away it leaves that to the last will")
    func stop() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            await h.gateway.stop()
            #expect(h.mqtt.retained("hap2mqtt/bridge/state")?.payloadString == #"{"state":"offline"}"#)
            #expect(h.mqtt.batches.last == [Gateway.lastWill(baseTopic: "hap2mqtt")])
        }
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            h.mqtt.setConnected(false)
            h.mqtt.clear()
            await h.gateway.stop()
            #expect(h.mqtt.published.isEmpty)
        }
    }
}

extension GatewayHarness {
    /// The state topic of every characteristic, as bridge/accessories announces them.
    func stateTopics() throws -> [CharacteristicAddress: String] {
        let message = try #require(mqtt.retained("hap2mqtt/bridge/accessories"))
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

    /// The entry of `bridge/accessories` with this slug.
    func accessoryEntry(_ slug: String) throws -> [String: Any]? {
        guard let message = mqtt.retained("hap2mqtt/bridge/accessories") else { return nil }
        let list = (try JSONSerialization.jsonObject(with: Data(message.payload))) as? [[String: Any]] ?? []
        return list.first { $0["slug"] as? String == slug }
    }
}
