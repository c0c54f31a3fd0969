import Foundation
import HAP2MQTTTesting
import HomeModel
import HomeStore
import Logging
import SystemSupport
import Testing

@testable import Gateway

/// `TopicIndex` alone: where each topic leads.
@Suite("Gateway parts: the topic index")
struct TopicIndexTests {
    static let scheme = TopicScheme(base: "hap2mqtt")
    static let lamp = InMemoryAccessoryProvider.accessory(aid: 2, name: "Kitchen Lamp", services: [.Service.lightbulb])
    static let door = InMemoryAccessoryProvider.accessory(
        aid: 3, name: "Front Door", services: [.Service.lockMechanism])

    static func address(_ accessory: Accessory, _ type: HAPType) -> CharacteristicAddress {
        CharacteristicAddress(accessory: accessory.id, iid: accessory.allCharacteristics.first { $0.type == type }!.iid)
    }

    @Test(
        "a state topic leads to its characteristic, an hs topic to its hue and saturation, a slug or an id to its accessory"
    )
    func lookups() {
        var index = TopicIndex(
            slugs: SlugRegistry(directory: nil, logger: Logger(label: "gateway")), scheme: Self.scheme)
        let layout = index.add(Self.lamp)
        _ = index.add(Self.door)
        #expect(layout.slug == "kitchen_lamp")
        let brightness = Self.address(Self.lamp, .Characteristic.brightness)
        #expect(index.characteristic(stateTopic: "hap2mqtt/kitchen_lamp/lightbulb/brightness")?.address == brightness)
        #expect(index.topic(at: brightness)?.stateTopic == "hap2mqtt/kitchen_lamp/lightbulb/brightness")
        #expect(index.characteristic(stateTopic: "hap2mqtt/kitchen_lamp/lightbulb/nothing") == nil)
        let hs = index.hs(stateTopic: "hap2mqtt/kitchen_lamp/lightbulb/hs")
        #expect(hs?.hue == Self.address(Self.lamp, .Characteristic.hue))
        #expect(index.hs(containing: Self.address(Self.lamp, .Characteristic.saturation)) == hs)
        #expect(index.hs(containing: brightness) == nil)
        #expect(index.accessory(slug: "front_door") == Self.door.id)
        #expect(index.accessory(named: "front_door") == Self.door.id)
        #expect(index.accessory(named: "00:00:00:00:00:01/2") == Self.lamp.id)
        #expect(index.accessory(named: "00:00:00:00:00:01/9") == nil, "an id that is not published")
    }

    @Test("a removed accessory leads nowhere, keeps its slug, and comes back under it")
    func removal() {
        var index = TopicIndex(
            slugs: SlugRegistry(directory: nil, logger: Logger(label: "gateway")), scheme: Self.scheme)
        _ = index.add(Self.lamp)
        #expect(index.remove(Self.lamp.id)?.slug == "kitchen_lamp")
        #expect(index.remove(Self.lamp.id) == nil)
        #expect(index.characteristic(stateTopic: "hap2mqtt/kitchen_lamp/lightbulb/on") == nil)
        #expect(index.hs(stateTopic: "hap2mqtt/kitchen_lamp/lightbulb/hs") == nil)
        #expect(index.accessory(slug: "kitchen_lamp") == nil)
        let other = InMemoryAccessoryProvider.accessory(aid: 7, name: "Kitchen Lamp", services: [.Service.lightbulb])
        #expect(index.add(other).slug == "kitchen_lamp_2", "the slug stays reserved for the accessory that had it")
        #expect(index.add(Self.lamp).slug == "kitchen_lamp")
    }

    @Test("a rename gives new topics after the accessory is added again, and the old ones lead nowhere")
    func rename() throws {
        var index = TopicIndex(
            slugs: SlugRegistry(directory: nil, logger: Logger(label: "gateway")), scheme: Self.scheme)
        _ = index.add(Self.lamp)
        _ = index.add(Self.door)
        #expect(throws: GatewayError.self) { try index.applyRename(Self.lamp.id, to: "front_door") }
        try index.applyRename(Self.lamp.id, to: "lamp")
        #expect(index.add(Self.lamp).slug == "lamp")
        #expect(index.characteristic(stateTopic: "hap2mqtt/lamp/lightbulb/on") != nil)
        #expect(index.characteristic(stateTopic: "hap2mqtt/kitchen_lamp/lightbulb/on") == nil)
        #expect(index.accessory(slug: "kitchen_lamp") == nil && index.accessory(slug: "lamp") == Self.lamp.id)
    }

    @Test("new slugs reach the state directory when saved")
    func saving() throws {
        let dir = StateDirectory(path: NSTemporaryDirectory() + "hap2mqtt-index-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: dir.path) }
        var index = TopicIndex(
            slugs: SlugRegistry(directory: dir, logger: Logger(label: "gateway")), scheme: Self.scheme)
        _ = index.add(Self.lamp)
        #expect(try dir.read(SlugRegistry.fileName) == nil)
        index.saveSlugs()
        #expect(
            SlugRegistry(directory: dir, logger: Logger(label: "gateway")).accessory(forSlug: "kitchen_lamp")
                == Self.lamp.id)
    }
}

/// `TopicScheme.command(for:)`: its byte-by-byte reading of ASCII topics answers as the character-by-character
/// one does.
@Suite("Gateway parts: command topics")
struct CommandTopicTests {
    @Test("ASCII topics read byte by byte give the same command as read character by character")
    func asciiReadingAgrees() {
        let levels = ["", "bridge", "request", "set", "get", "lamp", "light", "brightness", "x", "hap2mqtt", "\r\n"]
        for base in ["hap2mqtt", "home/hap", "a"] {
            let scheme = TopicScheme(base: base)
            var topics = [base, base + "/", "x" + base + "/lamp/set", base + "x/lamp/set"]
            for a in levels {
                topics.append("\(base)/\(a)")
                for b in levels {
                    topics.append("\(base)/\(a)/\(b)")
                    for c in levels {
                        topics.append("\(base)/\(a)/\(b)/\(c)")
                        for d in ["set", "get", "", "x"] { topics.append("\(base)/\(a)/\(b)/\(c)/\(d)") }
                    }
                }
            }
            topics += ["\(base)/a/b/c/set/more", "\(base)/a/b/c/d/set", "\(base)//set", "\(base)/bridge/request/"]
            for topic in topics {
                guard let ascii = scheme.asciiCommand(for: topic) else {
                    Issue.record("\(topic.debugDescription) was not read as ASCII")
                    continue
                }
                #expect(ascii == scheme.characterCommand(for: topic), "\(topic.debugDescription)")
                #expect(scheme.command(for: topic) == scheme.characterCommand(for: topic))
            }
        }
    }

    @Test("a topic or base that is not ASCII is read character by character")
    func otherTopics() {
        let scheme = TopicScheme(base: "hap2mqtt")
        #expect(scheme.asciiCommand(for: "hap2mqtt/küche/light/on/set") == nil)
        #expect(scheme.command(for: "hap2mqtt/küche/light/on/set") == .set(state: "hap2mqtt/küche/light/on"))
        // A combining mark after a `/` makes one character with it: not a level separator.
        #expect(scheme.command(for: "hap2mqtt/lamp/\u{301}light/on/set") == nil)
        let unicodeBase = TopicScheme(base: "häus")
        #expect(unicodeBase.asciiCommand(for: "häus/lamp/light/on/set") == nil)
        #expect(unicodeBase.command(for: "häus/lamp/light/on/set") == .set(state: "häus/lamp/light/on"))
        #expect(unicodeBase.command(for: "ha\u{308}us/lamp/light/on/set") == .set(state: "ha\u{308}us/lamp/light/on"))
    }
}
