import Foundation
import Gateway
import HAP2MQTTTesting
import HomeModel
import HomeStore
import Logging
import MQTT
import Testing

@Suite("Gateway: /set, /get and results")
struct GatewayCommandTests {
    @Test("writes that fail are each answered, and logged once a minute per topic")
    func failedWritesLoggedOnce() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            h.provider.setWriteBehavior(.fail(.notAllowedInCurrentState))
            for _ in 0..<3 {
                let result = try await h.set("kitchen_lamp/lightbulb/on", "true")
                #expect(jsonObject(result)?["status"] as? String == "error")
            }
            #expect(h.log.records(.warning, containing: "write of").count == 1, "\(h.log.lines)")
        }
    }

    @Test("a /set is awaited: the state changes only after the accessory accepted it, with an ok result")
    func awaitedWrite() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let on = h.address(aid: 2, .Characteristic.on)
            h.provider.setWriteBehavior(.hold, for: on)
            let mark = h.mqtt.published.count
            try await h.send("hap2mqtt/kitchen_lamp/lightbulb/on/set", "ON")
            try await eventually("the write reaches the accessory") { h.provider.writes.count == 1 }
            #expect(h.mqtt.published.count == mark, "nothing is published while the accessory has not answered")
            #expect(h.provider.writes.first?.first?.value == .bool(true))
            h.provider.releaseHeldWrites()
            let result = try await h.waitFor(topic: "hap2mqtt/kitchen_lamp/lightbulb/on/set/result", after: mark)
            #expect(result.payloadString == #"{"status":"ok","value":true}"#)
            #expect(result.retain == false, "results are never retained")
            let topics = h.mqtt.published.dropFirst(mark).map(\.topic)
            #expect(
                topics == [
                    "hap2mqtt/kitchen_lamp/lightbulb/on", "hap2mqtt/kitchen_lamp",
                    "hap2mqtt/kitchen_lamp/lightbulb/on/set/result",
                ], "the new state and the accessory JSON are published once, before the ok result")
            #expect(h.mqtt.retained("hap2mqtt/kitchen_lamp/lightbulb/on")?.payloadString == "true")
        }
    }

    @Test("a confirmed /set hands its state, accessory JSON and ok result to the MQTT client in one batch")
    func confirmedWriteIsOneBatch() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let on = h.address(aid: 2, .Characteristic.on)
            h.provider.setWriteBehavior(.hold, for: on)
            try await h.send("hap2mqtt/kitchen_lamp/lightbulb/on/set", "ON")
            try await eventually("the write reaches the accessory") { h.provider.writes.count == 1 }
            let mark = h.mqtt.batches.count
            let published = h.mqtt.published.count
            h.provider.releaseHeldWrites()
            _ = try await h.waitFor(topic: "hap2mqtt/kitchen_lamp/lightbulb/on/set/result", after: published)
            let batches = h.mqtt.batches.dropFirst(mark)
            #expect(
                batches.map { $0.map(\.topic) } == [
                    [
                        "hap2mqtt/kitchen_lamp/lightbulb/on", "hap2mqtt/kitchen_lamp",
                        "hap2mqtt/kitchen_lamp/lightbulb/on/set/result",
                    ]
                ])
        }
    }

    @Test("a write the accessory refuses leaves the state and names the HAP status")
    func refusedWrite() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            h.provider.setWriteBehavior(
                .fail(.invalidValueInRequest), for: h.address(aid: 2, .Characteristic.brightness))
            let mark = h.mqtt.published.count
            let result = try await h.set("kitchen_lamp/lightbulb/brightness", "50")
            let json = try #require(jsonObject(result))
            #expect(json["status"] as? String == "error")
            #expect(json["hap_status"] as? Int == -70410)
            #expect((json["error"] as? String)?.contains("-70410") == true)
            #expect(
                h.mqtt.published.dropFirst(mark).map(\.topic) == [
                    "hap2mqtt/kitchen_lamp/lightbulb/brightness/set/result"
                ])
            #expect(h.mqtt.retained("hap2mqtt/kitchen_lamp/lightbulb/brightness")?.payloadString == "0")
        }
    }

    @Test("a write that hangs times out with an error result, and the next write still works")
    func hangingWrite() async throws {
        try await withGatewayHarness(writeTimeout: .milliseconds(400)) { h in
            try await h.waitUntilOnline()
            let on = h.address(aid: 2, .Characteristic.on)
            h.provider.setWriteBehavior(.hang, for: on)
            let result = try await h.set("kitchen_lamp/lightbulb/on", "true")
            let json = try #require(jsonObject(result))
            #expect(json["status"] as? String == "error")
            #expect(json["hap_status"] as? Int == -70408)
            #expect(h.mqtt.retained("hap2mqtt/kitchen_lamp/lightbulb/on")?.payloadString == "false")
            h.provider.setWriteBehavior(.succeed, for: on)
            #expect(
                try await h.set("kitchen_lamp/lightbulb/on", "true").payloadString == #"{"status":"ok","value":true}"#)
        }
    }

    @Test(
        "a value that breaks a rule gets an error result and reaches no accessory",
        arguments: [
            ("kitchen_lamp/lightbulb/brightness", "bright", "not a valid"),
            ("kitchen_lamp/lightbulb/brightness", "150", "above the maximum 100"),
            ("kitchen_lamp/lightbulb/brightness", "-1", "below the minimum 0"),
            ("kitchen_lamp/lightbulb/brightness", "50.5", "not a valid int"),
            ("kitchen_lamp/lightbulb/hue", "400", "above the maximum 360"),
            ("kitchen_lamp/lightbulb/on", "maybe", "not a valid bool"),
            ("front_door/lock_mechanism/lock_target_state", "2", "valid values"),
            ("front_door/lock_mechanism/lock_target_state", "open", "valid values"),
            ("front_door/lock_mechanism/lock_current_state", "1", "read-only"),
        ])
    func invalidValues(topic: String, payload: String, expected: String) async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let result = try await h.set(topic, payload)
            let json = try #require(jsonObject(result))
            #expect(json["status"] as? String == "error")
            let error = try #require(json["error"] as? String)
            #expect(error.contains(expected), "\(error)")
            #expect(error.contains(payload), "the error names the value: \(error)")
            #expect(h.provider.writes.isEmpty)
            #expect(await h.store.waitingWrites(GatewayFixture.id(2)) == 0)
        }
    }

    @Test("a number off the step is written rounded to the nearest step, and the result says the value written")
    func valuesOffTheStep() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let result = try await h.set("hall_thermostat/thermostat/target_temperature", "21.26")
            #expect(result.payloadString == #"{"status":"ok","value":21.3}"#)
            #expect(h.provider.writes.last?.map(\.value) == [.float(21.3)], "the accessory gets the rounded value")
            #expect(h.mqtt.retained("hap2mqtt/hall_thermostat/thermostat/target_temperature")?.payloadString == "21.3")
        }
    }

    @Test("toggle, on/off and enum names are accepted")
    func friendlyValues() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            #expect(
                try await h.set("kitchen_lamp/lightbulb/on", "toggle").payloadString == #"{"status":"ok","value":true}"#
            )
            #expect(
                try await h.set("kitchen_lamp/lightbulb/on", "toggle").payloadString
                    == #"{"status":"ok","value":false}"#)
            #expect(
                try await h.set("kitchen_lamp/lightbulb/on", "On").payloadString == #"{"status":"ok","value":true}"#)
            #expect(
                try await h.set("front_door/lock_mechanism/lock_target_state", "SECURED").payloadString
                    == #"{"status":"ok","value":1}"#)
            #expect(
                try await h.set("hall_thermostat/thermostat/target_heating_cooling_state", "heat").payloadString
                    == #"{"status":"ok","value":1}"#)
            #expect(
                try await h.set("hall_thermostat/thermostat/target_temperature", " 21.5 ").payloadString
                    == #"{"status":"ok","value":21.5}"#)
            #expect(h.mqtt.retained("hap2mqtt/front_door/lock_mechanism/lock_target_state")?.payloadString == "1")
            #expect(h.provider.writes.count == 6)
        }
    }

    /// The warning docs/topics.md "Topics" promises for a retained command, which the gateway clears.
    static let retainedWarning =
        "ignored a retained command on hap2mqtt/kitchen_lamp/lightbulb/on/set and cleared it from the broker: "
        + "publish commands without the retain flag"

    @Test(
        "a command that arrives retained is not carried out but cleared from the broker, with a warning; clearing it is quiet"
    )
    func retainedCommandIgnored() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let mark = h.mqtt.published.count
            try await h.send("hap2mqtt/kitchen_lamp/lightbulb/on/set", "true", retain: true)
            let warnings = h.log.records(.warning, containing: "ignored a retained command")
            #expect(warnings.map(\.message) == [Self.retainedWarning])
            #expect(warnings.first?.label == "gateway")
            try await h.send("hap2mqtt/kitchen_lamp/set", #"{"lightbulb":{"on":true}}"#, retain: true)
            try await h.send("hap2mqtt/bridge/request/identify", #"{"accessory":"kitchen_lamp"}"#, retain: true)
            try await h.send("hap2mqtt/kitchen_lamp/lightbulb/on/set", "", retain: true)
            let sent = h.mqtt.published.dropFirst(mark)
            #expect(
                sent.map(\.topic) == [
                    "hap2mqtt/kitchen_lamp/lightbulb/on/set", "hap2mqtt/kitchen_lamp/set",
                    "hap2mqtt/bridge/request/identify",
                ], "no result, no state, only the clears")
            #expect(sent.allSatisfy { $0.retain && $0.payload.isEmpty })
            #expect(
                h.log.records(.warning, containing: "ignored a retained command").count == 3, "none for the empty one")
            #expect(h.provider.writes.isEmpty && h.provider.identified.isEmpty)
            #expect(
                try await h.set("kitchen_lamp/lightbulb/on", "true").payloadString == #"{"status":"ok","value":true}"#)
        }
    }

    @Test(
        "an empty /set, as MQTT 3.1.1 forwards the clearing of a retained one, writes nothing and gets no result; \"\" is the empty string"
    )
    func emptyPayloadIsNoCommand() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let mark = h.mqtt.published.count
            try await h.send("hap2mqtt/kitchen_lamp/lightbulb/on/set", "")
            try await h.send("hap2mqtt/kitchen_lamp/set", "")
            #expect(h.mqtt.published.count == mark, "\(h.mqtt.published.dropFirst(mark).map(\.topic))")
            #expect(h.provider.writes.isEmpty)
            #expect(
                h.log.records(.info, containing: "ignored an empty message on hap2mqtt/kitchen_lamp/lightbulb/on/set")
                    .count == 1)
            // One that names a response topic awaits an answer, which no clear does: it gets the reason.
            let asked = MQTTProperties(responseTopic: "hap2mqtt/response/me", correlationData: Array("e".utf8))
            let before = h.mqtt.published.count
            try await h.send("hap2mqtt/kitchen_lamp/lightbulb/on/set", "", properties: asked)
            let reply = try await h.waitFor(topic: "hap2mqtt/response/me", after: before)
            #expect(jsonObject(reply)?["error"] as? String == Gateway.emptyCommandRefusal)
            #expect(h.provider.writes.isEmpty)
            // A quoted empty string is a value: here the wrong type for a bool, with its error.
            let quoted = try await h.set("kitchen_lamp/lightbulb/on", #""""#)
            #expect(quoted.payloadString?.contains(#""status":"error""#) == true)
        }
    }

    @Test("a retained command's warning is logged even right after a refused value on the same topic")
    func retainedWarningAfterRefusal() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let refused = try await h.set("kitchen_lamp/lightbulb/on", "maybe")
            #expect(refused.payloadString?.contains(#""status":"error""#) == true)
            #expect(h.log.records(.info, containing: "refused hap2mqtt/kitchen_lamp/lightbulb/on/set").count == 1)
            try await h.send("hap2mqtt/kitchen_lamp/lightbulb/on/set", "true", retain: true)
            #expect(
                h.log.records(.warning, containing: "ignored a retained command").map(\.message) == [
                    Self.retainedWarning
                ])
            #expect(h.provider.writes.isEmpty)
        }
    }

    @Test(
        "20 /sets to one characteristic while its write is in flight collapse into one write of the last value; each gets a result"
    )
    func coalescing() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            h.provider.setWriteBehavior(.hold)
            let mark = h.mqtt.published.count
            for value in 1...20 {
                try h.mqtt.deliver("hap2mqtt/kitchen_lamp/lightbulb/brightness/set", "\(value)")
            }
            await h.mqtt.drained()
            // The first is in flight (held); the other 19 wait as one write.
            try await eventually("the first write reaches the accessory") { h.provider.writes.count == 1 }
            #expect(await h.store.waitingWrites(GatewayFixture.id(2)) == 19)
            h.provider.setWriteBehavior(.succeed)
            h.provider.releaseHeldWrites()
            let results = "hap2mqtt/kitchen_lamp/lightbulb/brightness/set/result"
            try await eventually("20 results") { h.mqtt.messages(on: results).count == 20 }
            #expect(h.mqtt.messages(on: results).allSatisfy { jsonObject($0)?["status"] as? String == "ok" })
            #expect(h.mqtt.payloads(on: results).suffix(19).allSatisfy { $0 == #"{"status":"ok","value":20}"# })
            #expect(h.provider.writes.map { $0.map(\.value) } == [[.int(1)], [.int(20)]])
            #expect(h.mqtt.retained("hap2mqtt/kitchen_lamp/lightbulb/brightness")?.payloadString == "20")
            let states = h.mqtt.published.dropFirst(mark).filter {
                $0.topic == "hap2mqtt/kitchen_lamp/lightbulb/brightness"
            }
            #expect(states.compactMap(\.payloadString) == ["1", "20"], "each confirmed write publishes the state once")
        }
    }

    @Test("results and /get answers also go to an MQTT 5 response topic, with the correlation data")
    func responseTopics() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let asked = MQTTProperties(responseTopic: "hap2mqtt/response/me", correlationData: Array("req-42".utf8))
            var mark = h.mqtt.published.count
            _ = try await h.set("kitchen_lamp/lightbulb/brightness", "55", properties: asked)
            let reply = try await h.waitFor(topic: "hap2mqtt/response/me", after: mark)
            #expect(reply.payloadString == #"{"status":"ok","value":55}"#)
            #expect(reply.properties.correlationData == Array("req-42".utf8) && reply.properties.responseTopic == nil)
            #expect(reply.retain == false)
            mark = h.mqtt.published.count
            try await h.send("hap2mqtt/kitchen_lamp/lightbulb/brightness/get", "", properties: asked)
            #expect(
                try await h.waitFor(topic: "hap2mqtt/response/me", after: mark).payloadString
                    == #"{"status":"ok","value":55}"#)
            mark = h.mqtt.published.count
            try await h.send("hap2mqtt/bridge/request/identify", #"{"accessory":"nobody"}"#, properties: asked)
            let refused = try await h.waitFor(topic: "hap2mqtt/response/me", after: mark)
            #expect(jsonObject(refused)?["status"] as? String == "error")
            #expect(h.mqtt.payloads(on: "hap2mqtt/bridge/response/identify").last == refused.payloadString)
        }
    }

    @Test("/get reads the accessory and republishes the value, also when it did not change")
    func get() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let mark = h.mqtt.published.count
            try await h.send("hap2mqtt/kitchen_lamp/lightbulb/brightness/get", "")
            let state = try await h.waitFor(topic: "hap2mqtt/kitchen_lamp/lightbulb/brightness", after: mark)
            #expect(state.payloadString == "0")
            #expect(h.provider.reads.contains { $0.contains(h.address(aid: 2, .Characteristic.brightness)) })
            #expect(
                h.mqtt.published.dropFirst(mark).map(\.topic) == [
                    "hap2mqtt/kitchen_lamp/lightbulb/brightness", "hap2mqtt/kitchen_lamp",
                ])
        }
    }

    @Test("<accessory>/set writes several characteristics in one request, or none when one is wrong")
    func multiWrite() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let good = try await h.set("kitchen_lamp", #"{"lightbulb":{"on":true,"brightness":70,"hue":120}}"#)
            #expect(
                good.payloadString
                    == #"{"status":"ok","results":{"lightbulb":{"on":{"status":"ok","value":true},"brightness":{"status":"ok","value":70},"hue":{"status":"ok","value":120}}}}"#
            )
            #expect(h.provider.writes.count == 1)
            #expect(h.provider.writes.first?.count == 3)
            #expect(h.mqtt.retained("hap2mqtt/kitchen_lamp/lightbulb/brightness")?.payloadString == "70")
            let bad = try await h.set(
                "kitchen_lamp", #"{"lightbulb":{"on":false,"brightness":700,"nope":1},"fan":{"on":true}}"#)
            #expect(jsonObject(bad)?["status"] as? String == "error")
            #expect(
                jsonObject(bad)?["error"] as? String
                    == "no service fan; brightness: 700 is above the maximum 100; no characteristic lightbulb/nope")
            #expect(h.provider.writes.count == 1)
            let garbage = try await h.set("kitchen_lamp", "not json")
            #expect(jsonObject(garbage)?["status"] as? String == "error")
            let truncated = try await h.set("kitchen_lamp", #"{"lightbulb":{"on":true}"#)
            #expect(
                (jsonObject(truncated)?["error"] as? String)?.hasPrefix("the payload is not valid JSON") == true,
                "\(truncated.payloadString ?? "")")
            #expect(
                (jsonObject(truncated)?["error"] as? String)?.contains("cut short") == true
                    || (jsonObject(truncated)?["error"] as? String)?.contains("byte") == true,
                "the answer says where it broke: \(truncated.payloadString ?? "")")
            let deep = try await h.set("kitchen_lamp", String(repeating: "[", count: 150))
            #expect(
                (jsonObject(deep)?["error"] as? String)?.contains("nested deeper than") == true,
                "\(deep.payloadString ?? "")")
            let array = try await h.set("kitchen_lamp", "[1,2]")
            #expect(
                (jsonObject(array)?["error"] as? String)?.hasPrefix("the payload is not a JSON object") == true,
                "\(array.payloadString ?? "")")
            let nested = try await h.set("kitchen_lamp", #"{"lightbulb":{"brightness":{"v":1}}}"#)
            #expect(
                (jsonObject(nested)?["error"] as? String)?.hasPrefix(
                    #"the value of "lightbulb/brightness" is an array or an object"#) == true,
                "\(nested.payloadString ?? "")")
            let flat = try await h.set("kitchen_lamp", #"{"lightbulb":5}"#)
            #expect(
                (jsonObject(flat)?["error"] as? String)?.hasPrefix(#""lightbulb" is not an object of characteristics"#)
                    == true, "\(flat.payloadString ?? "")")
            let empty = try await h.set("kitchen_lamp", "{}")
            #expect(jsonObject(empty)?["error"] as? String == "the payload names no characteristic")
            #expect(h.provider.writes.count == 1)
        }
    }

    @Test("a multi-write to an offline accessory gets each write's error")
    func multiWriteOffline() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            h.provider.setReachable([GatewayFixture.id(2)], false)
            try await h.mqtt.waitFor(topic: "hap2mqtt/kitchen_lamp/availability") { $0.payloadString == "offline" }
            let result = try await h.set("kitchen_lamp", #"{"lightbulb":{"on":true}}"#)
            let json = try #require(jsonObject(result))
            #expect(json["status"] as? String == "error")
            let on = try #require(
                ((json["results"] as? [String: Any])?["lightbulb"] as? [String: Any])?["on"] as? [String: Any])
            #expect(on["hap_status"] as? Int == -70402, "\(on)")
            #expect(h.provider.writes.isEmpty)
        }
    }

    @Test("commands to unknown topics and non-UTF-8 payloads get clear errors")
    func unknownTopics() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let unknown = try await h.set("nowhere/lightbulb/on", "true")
            #expect((jsonObject(unknown)?["error"] as? String)?.contains("no accessory") == true)
            let noCharacteristic = try await h.set("kitchen_lamp/lightbulb/nonexistent", "1")
            #expect(
                jsonObject(noCharacteristic)?["status"] as? String == "error", "\(noCharacteristic.payloadString ?? "")"
            )
            let mark = h.mqtt.published.count
            try h.mqtt.deliver(
                MQTTMessage(topic: "hap2mqtt/kitchen_lamp/lightbulb/on/set", payload: [0xFF, 0xFE], qos: .atLeastOnce))
            let binary = try await h.waitFor(topic: "hap2mqtt/kitchen_lamp/lightbulb/on/set/result", after: mark)
            #expect((jsonObject(binary)?["error"] as? String)?.contains("UTF-8") == true)
            #expect(h.provider.writes.isEmpty)
        }
    }

    @Test("bridge requests echo the transaction; identify reaches the accessory")
    func bridgeRequests() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            try await h.send("hap2mqtt/bridge/request/identify", #"{"accessory":"kitchen_lamp","transaction":7}"#)
            let ok = try await h.mqtt.waitFor(topic: "hap2mqtt/bridge/response/identify")
            #expect(ok.payloadString == #"{"status":"ok","data":{"accessory":"kitchen_lamp"},"transaction":7}"#)
            #expect(h.provider.identified == [GatewayFixture.id(2)])
            let mark = h.mqtt.published.count
            try await h.send("hap2mqtt/bridge/request/identify", #"{"accessory":"nobody","transaction":"x"}"#)
            let bad = try await h.waitFor(topic: "hap2mqtt/bridge/response/identify", after: mark)
            #expect(jsonObject(bad)?["status"] as? String == "error")
            #expect(jsonObject(bad)?["transaction"] as? String == "x")
            // Only a number or a short string is echoed: a sender picks no payload of its own.
            let long = String(repeating: "y", count: Gateway.maxTransactionLength + 1)
            let short = String(repeating: "z", count: Gateway.maxTransactionLength)
            for (transaction, echoed) in [
                ("\"\(long)\"", nil), (#"{"a":[1,2]}"#, nil), ("[1]", nil), ("true", nil), ("null", nil),
                ("\"\(short)\"", "\"\(short)\""), ("-2.5", "-2.5"), ("12345678901234", "12345678901234"),
            ] as [(String, String?)] {
                let mark = h.mqtt.published.count
                try await h.send(
                    "hap2mqtt/bridge/request/identify", #"{"accessory":"kitchen_lamp","transaction":\#(transaction)}"#)
                let answer = try await h.waitFor(topic: "hap2mqtt/bridge/response/identify", after: mark)
                let expected = echoed.map { ",\"transaction\":\($0)" } ?? ""
                #expect(
                    answer.payloadString == #"{"status":"ok","data":{"accessory":"kitchen_lamp"}\#(expected)}"#,
                    "\(transaction)")
            }
            try await h.send("hap2mqtt/bridge/request/reboot", "{}")
            let unknown = try await h.mqtt.waitFor(topic: "hap2mqtt/bridge/response/reboot")
            #expect(
                unknown.payloadString
                    == #"{"status":"error","data":{},"error":"unknown request 'reboot'; the requests are identify, rename, health_check, homeassistant_migrate, add_pairing, backup, list_pairings, options, pair, refresh, remove_pairing, unpair, group_add, group_list, group_remove, group_rename, group_set, scene_list, scene_recall, scene_remove, scene_rename, scene_store"}"#
            )
        }
    }

    @Test("rename moves an accessory to new topics and clears the old ones")
    func rename() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            try await h.send("hap2mqtt/bridge/request/rename", #"{"accessory":"kitchen_lamp","to":"lamp"}"#)
            let response = try await h.mqtt.waitFor(topic: "hap2mqtt/bridge/response/rename")
            #expect(jsonObject(response)?["status"] as? String == "ok")
            #expect(h.mqtt.retained("hap2mqtt/lamp/lightbulb/on")?.payloadString == "false")
            #expect(h.mqtt.retained("hap2mqtt/kitchen_lamp/lightbulb/on") == nil)
            #expect(h.mqtt.retained("hap2mqtt/kitchen_lamp/availability") == nil)
            #expect(h.mqtt.retained(under: "hap2mqtt/kitchen_lamp/#").isEmpty)
            #expect(try await h.set("lamp/lightbulb/on", "1").payloadString == #"{"status":"ok","value":true}"#)

            // To the name it has: ok, and nothing moves or is announced.
            let mark = h.mqtt.published.count
            try await h.send("hap2mqtt/bridge/request/rename", #"{"accessory":"lamp","to":"lamp"}"#)
            #expect(h.mqtt.published.dropFirst(mark).map(\.topic) == ["hap2mqtt/bridge/response/rename"])
            #expect(jsonObject(try #require(h.mqtt.published.last))?["status"] as? String == "ok")
        }
    }
}

/// What needs a real broker: retained commands the broker replays or forwards with Retain As Published,
/// and a response topic end to end.
@Suite("Gateway: commands through a real broker")
struct GatewayBrokerCommandTests {
    @Test("a retained /set left on the broker is not carried out when the gateway subscribes")
    func retainedCommand() async throws {
        try await withBrokerGatewayHarness(autoSync: false) { h in
            try await h.observer.publish("hap2mqtt/kitchen_lamp/lightbulb/on/set", "true", retain: true)
            h.provider.completeSync()
            try await h.waitUntilOnline()
            #expect(
                try await h.log.waitFor(.warning, containing: "ignored a retained command").message
                    == GatewayCommandTests.retainedWarning)
            // Delivered after the replayed one on the same subscription, and handled after it.
            let later = try await h.set("kitchen_lamp/lightbulb/brightness", "5")
            #expect(later.payloadString == #"{"status":"ok","value":5}"#)
            #expect(await h.observer.messages(on: "hap2mqtt/kitchen_lamp/lightbulb/on/set/result").isEmpty)
            #expect(h.provider.writes.map { $0.map(\.address) } == [[h.address(aid: 2, .Characteristic.brightness)]])
            #expect(try await h.observer.retained("hap2mqtt/kitchen_lamp/lightbulb/on")?.payloadString == "false")
        }
    }

    @Test(
        "a /set published retained while the gateway runs is ignored too (Retain As Published), and clearing it is quiet"
    )
    func liveRetainedCommand() async throws {
        try await withBrokerGatewayHarness { h in
            try await h.waitUntilOnline()
            await h.observer.clear()
            try await h.observer.publish("hap2mqtt/kitchen_lamp/lightbulb/on/set", "true", retain: true)
            // The user clears it, as the warning says: no result for the empty payload either.
            try await h.observer.publish("hap2mqtt/kitchen_lamp/lightbulb/on/set", "", retain: true)
            // The same command without the retain flag is carried out, and its result is the only one.
            try await h.observer.publish("hap2mqtt/kitchen_lamp/lightbulb/on/set", "true")
            let ok = try await h.observer.waitFor(topic: "hap2mqtt/kitchen_lamp/lightbulb/on/set/result")
            #expect(ok.payloadString == #"{"status":"ok","value":true}"#)
            #expect(await h.observer.messages(on: "hap2mqtt/kitchen_lamp/lightbulb/on/set/result").count == 1)
            #expect(h.provider.writes.count == 1)
            // Commands are handled in order: both retained ones came before this result, one with a warning.
            #expect(
                h.log.records(.warning, containing: "ignored a retained command").map(\.message) == [
                    GatewayCommandTests.retainedWarning
                ])
        }
    }

    @Test("an MQTT 5 request with a response topic gets its result there with the correlation data")
    func responseTopic() async throws {
        try await withBrokerGatewayHarness { h in
            try await h.waitUntilOnline()
            try await h.observer.subscribe(["hap2mqtt/response/#"])
            let properties = MQTTProperties(
                responseTopic: "hap2mqtt/response/me", correlationData: Array("req-42".utf8))
            try await h.observer.publish("hap2mqtt/kitchen_lamp/lightbulb/brightness/set", "55", properties: properties)
            let reply = try await h.observer.waitFor(topic: "hap2mqtt/response/me")
            #expect(reply.payloadString == #"{"status":"ok","value":55}"#)
            #expect(reply.properties.correlationData == Array("req-42".utf8))
            #expect(reply.retain == false)
        }
    }
}
