import Foundation
import HAP2MQTTTesting
import HomeModel
import Logging
import MQTT
import Testing

@testable import Gateway

/// Commands meant to hurt (docs/DESIGN.md "Hostile input"): response topics that would make the gateway publish
/// where it must not, payloads over the limit, reads that cannot succeed, and the same bad command again
/// and again. Each costs its own answer and nothing else.
@Suite("Gateway: hostile commands")
struct GatewayHostileInputTests {
    static let badResponseTopics = [
        "r/+", "r/#", "", "hap2mqtt/bridge/state", "hap2mqtt/kitchen_lamp/lightbulb/on", "hap2mqtt",
        "homeassistant/light/x/config", "homeassistant/status", "hap2mqtt/kitchen_lamp/lightbulb/on/set", "$SYS/x",
    ]

    @Test(
        "a response topic that is no topic, one of the gateway's or Home Assistant's, or off mqtt.response_topics refuses the command: nothing is written or answered",
        arguments: badResponseTopics + ["replies/me", "zigbee2mqtt/bridge/request/restart"])
    func badResponseTopic(_ responseTopic: String) async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let mark = h.mqtt.published.count
            let asked = MQTTProperties(responseTopic: responseTopic, correlationData: Array("c-1".utf8))
            try await h.send("hap2mqtt/kitchen_lamp/lightbulb/brightness/set", "77", properties: asked)
            try await h.send(
                "hap2mqtt/bridge/request/rename", #"{"accessory":"kitchen_lamp","to":"lamp"}"#, properties: asked)
            // A command sent after them is carried out: by then they were dropped.
            let result = try await h.set("kitchen_lamp/lightbulb/brightness", "12")
            #expect(result.payloadString == #"{"status":"ok","value":12}"#)
            let after = h.mqtt.published.dropFirst(mark)
            #expect(
                !after.contains { $0.topic.contains("brightness") && $0.payloadString?.contains("77") == true },
                "\(after.map(\.topic))")
            #expect(!after.contains { $0.topic == responseTopic }, "nothing was published on \(responseTopic)")
            #expect(!after.contains { $0.topic.hasPrefix("hap2mqtt/bridge/response") }, "the rename was not answered")
            #expect(!after.contains { $0.topic.hasPrefix("hap2mqtt/lamp") }, "the rename was not carried out")
            #expect(!after.contains { $0.properties.correlationData != nil }, "no answer carries the correlation data")
            #expect(!h.provider.writes.joined().contains { $0.value == .int(77) }, "\(h.provider.writes)")
            // Once a minute for each response topic: the two commands made one line.
            #expect(h.log.records(.warning, containing: "with the response topic").count == 1, "\(h.log.lines)")
        }
    }

    @Test("a response topic under <base>/response/ is answered by default; mqtt.response_topics sets which others are")
    func goodResponseTopics() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let mark = h.mqtt.published.count
            _ = try await h.set(
                "kitchen_lamp/lightbulb/brightness", "40",
                properties: MQTTProperties(responseTopic: "hap2mqtt/response/me"))
            let reply = try await h.waitFor(topic: "hap2mqtt/response/me", after: mark)
            #expect(reply.payloadString == #"{"status":"ok","value":40}"#)
            #expect(h.log.records(.warning, containing: "with the response topic").isEmpty)
        }
        try await withGatewayHarness(responseTopics: ["replies/+", "hap2mqtt/#", "#"]) { h in
            try await h.waitUntilOnline()
            for topic in ["replies/me", "hap2mqtt/response/me", "elsewhere/x"] {
                let mark = h.mqtt.published.count
                _ = try await h.set(
                    "kitchen_lamp/lightbulb/brightness", "41", properties: MQTTProperties(responseTopic: topic))
                #expect(try await h.waitFor(topic: topic, after: mark).payloadString == #"{"status":"ok","value":41}"#)
            }
            // A filter as wide as `#` lifts none of the fixed refusals.
            try await Self.expectRefused(
                h, "hap2mqtt/bridge/state", logging: "with the response topic \"hap2mqtt/bridge/state\"")
        }
        try await withGatewayHarness(responseTopics: []) { h in
            try await h.waitUntilOnline()
            try await Self.expectRefused(h, "hap2mqtt/response/me", logging: "no response topics are answered")
        }
    }

    /// Sends a `/set` naming `responseTopic`, then one without: nothing goes out on `responseTopic`, and
    /// the log holds one warning `containing` its reason.
    static func expectRefused(_ h: GatewayHarness, _ responseTopic: String, logging reason: String) async throws {
        let mark = h.mqtt.published.count
        try await h.send(
            "hap2mqtt/kitchen_lamp/lightbulb/brightness/set", "42",
            properties: MQTTProperties(responseTopic: responseTopic))
        _ = try await h.set("kitchen_lamp/lightbulb/brightness", "43")
        #expect(!h.mqtt.published.dropFirst(mark).contains { $0.topic == responseTopic })
        #expect(h.log.records(.warning, containing: reason).count == 1)
    }

    @Test("no accessory can take the slug 'response', where answers may go")
    func responseSlugIsReserved() async throws {
        let accessories = [
            InMemoryAccessoryProvider.accessory(aid: 2, name: "Response", services: [.Service.lightbulb])
        ]
        try await withGatewayHarness(accessories: accessories) { h in
            try await h.waitUntilOnline()
            #expect(h.mqtt.retained("hap2mqtt/response/lightbulb/on") == nil)
            #expect(
                h.mqtt.retained("hap2mqtt/response_2/lightbulb/on") != nil,
                "\(h.mqtt.retained(under: "hap2mqtt/#").keys.sorted())")
        }
    }

    @Test("a command larger than mqtt.max_command_size is refused with an error result, and nothing is written")
    func oversizedCommand() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let limit = GatewayConfiguration.defaultMaxCommandSize
            let expected =
                "the payload is \(limit + 1) bytes; commands may be at most \(limit) bytes (mqtt.max_command_size)"
            var mark = h.mqtt.published.count
            try h.mqtt.deliver(
                MQTTMessage(
                    topic: "hap2mqtt/kitchen_lamp/lightbulb/brightness/set",
                    payload: Array(repeating: 0x31, count: limit + 1), qos: .atLeastOnce))
            var result = try await h.waitFor(
                topic: "hap2mqtt/kitchen_lamp/lightbulb/brightness/set/result", after: mark)
            #expect(result.payloadString == #"{"status":"error","error":"\#(expected)"}"#)

            // As the MQTT client hands it over: the payload was not kept, only its size.
            mark = h.mqtt.published.count
            var dropped = MQTTMessage(topic: "hap2mqtt/bridge/request/rename", payload: [], qos: .atLeastOnce)
            dropped.droppedPayloadSize = 1_000_000
            try h.mqtt.deliver(dropped)
            result = try await h.waitFor(topic: "hap2mqtt/bridge/response/rename", after: mark)
            #expect(
                jsonObject(result)?["error"] as? String
                    == "the payload is 1000000 bytes; commands may be at most \(limit) bytes (mqtt.max_command_size)")
            mark = h.mqtt.published.count
            dropped.topic = "hap2mqtt/kitchen_lamp/set"
            try h.mqtt.deliver(dropped)
            result = try await h.waitFor(topic: "hap2mqtt/kitchen_lamp/set/result", after: mark)
            #expect(jsonObject(result)?["status"] as? String == "error")
            #expect(h.provider.writes.isEmpty)
        }
    }

    @Test("/get of a write-only characteristic is refused without asking the accessory, and without a warning")
    func getWriteOnly() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let asked = MQTTProperties(responseTopic: "hap2mqtt/response/me")
            for _ in 0..<3 {
                let mark = h.mqtt.published.count
                try await h.send("hap2mqtt/kitchen_lamp/accessory_information/identify/get", "", properties: asked)
                let reply = try await h.waitFor(topic: "hap2mqtt/response/me", after: mark)
                #expect(
                    reply.payloadString
                        == #"{"status":"error","error":"identify: the characteristic is write-only and cannot be read","hap_status":-70405}"#
                )
            }
            #expect(h.provider.reads.isEmpty, "a read reached the accessory: \(h.provider.reads)")
            #expect(h.log.all.filter { $0.level >= .warning }.isEmpty, "\(h.log.lines)")
            #expect(
                h.log.records(.info, containing: "refused hap2mqtt/kitchen_lamp/accessory_information/identify/get")
                    .count == 1)
        }
    }

    @Test("a multi-write to an accessory that does not exist is answered and logged")
    func unknownAccessorySet() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let mark = h.mqtt.published.count
            try await h.send("hap2mqtt/ghost/set", #"{"lightbulb":{"on":true}}"#)
            let result = try await h.waitFor(topic: "hap2mqtt/ghost/set/result", after: mark)
            #expect(result.payloadString?.contains("no accessory, service or characteristic at hap2mqtt/ghost") == true)
            #expect(
                h.log.records(.info, containing: "refused hap2mqtt/ghost/set: no accessory").count == 1,
                "\(h.log.lines)")
            #expect(h.provider.writes.isEmpty)
        }
    }

    @Test("the same bad command sent again and again is answered every time and logged once a minute")
    func repeatedRefusals() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let started = ContinuousClock.now
            for _ in 0..<50 {
                let result = try await h.set("kitchen_lamp/lightbulb/brightness", "150")
                #expect(
                    result.payloadString == #"{"status":"error","error":"brightness: 150 is above the maximum 100"}"#)
            }
            // One line, and one more for each minute a loaded machine took over the 50 (with the count).
            let minutes = Int((ContinuousClock.now - started).components.seconds / 60)
            let lines = h.log.records(.info, containing: "refused hap2mqtt/kitchen_lamp/lightbulb/brightness/set")
            #expect((1...1 + minutes).contains(lines.count), "\(lines.map(\.message))")
            #expect(
                lines.dropFirst().allSatisfy { $0.message.contains("more refused on this topic since its last line") })
            #expect(h.provider.writes.isEmpty)
        }
    }

    @Test("the refusal log lets one line a minute through per topic, with the count of those it held back")
    func refusalLog() {
        var log = RefusalLog()
        let start = ContinuousClock.now
        #expect(log.admit("refused a", topic: "a", now: start) == "refused a")
        #expect(log.admit("refused a", topic: "a", now: start + .seconds(10)) == nil)
        #expect(log.admit("refused a", topic: "a", now: start + .seconds(20)) == nil)
        #expect(log.admit("refused b", topic: "b", now: start + .seconds(20)) == "refused b")
        #expect(
            log.admit("refused a", topic: "a", now: start + .seconds(61))
                == "refused a (and 2 more refused on this topic since its last line, not logged)")
        for i in 0..<(RefusalLog.maxTopics * 2) {
            _ = log.admit("refused \(i)", topic: "t\(i)", now: start + .seconds(62))
        }
        #expect(
            log.admit("refused new", topic: "new", now: start + .seconds(63)) == nil,
            "past maxTopics, new topics share one entry")
    }

    @Test("only /set and /get of one characteristic without a response topic collapse in the MQTT client's queue")
    func collapsing() {
        let collapses = Gateway.collapsesCommand(baseTopic: "hap2mqtt")
        #expect(collapses(MQTTMessage(topic: "hap2mqtt/lamp/lightbulb/on/set", string: "1")))
        #expect(collapses(MQTTMessage(topic: "hap2mqtt/lamp/lightbulb/on/get", string: "")))
        #expect(
            !collapses(
                MQTTMessage(
                    topic: "hap2mqtt/lamp/lightbulb/on/set", string: "1", properties: MQTTProperties(responseTopic: "r")
                )))
        #expect(
            !collapses(
                MQTTMessage(
                    topic: "hap2mqtt/lamp/lightbulb/on/set", string: "1",
                    properties: MQTTProperties(correlationData: [1]))))
        #expect(!collapses(MQTTMessage(topic: "hap2mqtt/lamp/lightbulb/on/set", string: "1", retain: true)))
        #expect(!collapses(MQTTMessage(topic: "hap2mqtt/lamp/set", string: "{}")))
        #expect(!collapses(MQTTMessage(topic: "hap2mqtt/bridge/request/rename", string: "{}")))
        #expect(!collapses(MQTTMessage(topic: "homeassistant/status", string: "online")))
    }
}
