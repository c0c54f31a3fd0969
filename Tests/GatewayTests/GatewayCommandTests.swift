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
    @Test("a /set is awaited: the state changes only after the accessory accepted it, with an ok result")
    func awaitedWrite() async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        let on = h.address(aid: 2, .Characteristic.on)
        h.provider.setWriteBehavior(.hold, for: on)
        await h.observer.clear()
        try await h.observer.publish("hap2mqtt/kitchen_lamp/lightbulb/on/set", "ON")
        try await waitUntil { h.provider.writes.count == 1 }
        let early = await h.observer.firstMessage(on: "hap2mqtt/kitchen_lamp/lightbulb/on", within: .milliseconds(300))
        #expect(early == nil, "the state is not published while the accessory has not answered")
        #expect(await h.observer.messages(on: "hap2mqtt/kitchen_lamp/lightbulb/on/set/result").isEmpty)
        #expect(h.provider.writes.first?.first?.value == .bool(true))
        h.provider.releaseHeldWrites()
        let result = try await h.observer.waitFor(topic: "hap2mqtt/kitchen_lamp/lightbulb/on/set/result")
        #expect(result.payloadString == #"{"status":"ok","value":true}"#)
        #expect(result.retain == false)
        let received = await h.observer.allMessages.map(\.topic)
        let stateIndex = try #require(received.firstIndex(of: "hap2mqtt/kitchen_lamp/lightbulb/on"))
        let resultIndex = try #require(received.firstIndex(of: "hap2mqtt/kitchen_lamp/lightbulb/on/set/result"))
        #expect(stateIndex < resultIndex, "the new state is published before the ok result")
        #expect(try await h.observer.retained("hap2mqtt/kitchen_lamp/lightbulb/on")?.payloadString == "true")
        #expect(try await h.observer.retained("hap2mqtt/kitchen_lamp/lightbulb/on/set/result") == nil, "results are never retained")
        await h.stop()
    }

    @Test("a write the accessory refuses leaves the state and names the HAP status")
    func refusedWrite() async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        h.provider.setWriteBehavior(.fail(.invalidValueInRequest), for: h.address(aid: 2, .Characteristic.brightness))
        let result = try await h.set("kitchen_lamp/lightbulb/brightness", "50")
        let json = try #require(jsonObject(result))
        #expect(json["status"] as? String == "error")
        #expect(json["hap_status"] as? Int == -70410)
        #expect((json["error"] as? String)?.contains("-70410") == true)
        #expect(try await h.observer.retained("hap2mqtt/kitchen_lamp/lightbulb/brightness")?.payloadString == "0")
        await h.stop()
    }

    @Test("a write that hangs times out with an error result, and the next write still works")
    func hangingWrite() async throws {
        let h = try await GatewayHarness(writeTimeout: .milliseconds(400))
        try await h.waitUntilOnline()
        let on = h.address(aid: 2, .Characteristic.on)
        h.provider.setWriteBehavior(.hang, for: on)
        let result = try await h.set("kitchen_lamp/lightbulb/on", "true")
        let json = try #require(jsonObject(result))
        #expect(json["status"] as? String == "error")
        #expect(json["hap_status"] as? Int == -70408)
        #expect(try await h.observer.retained("hap2mqtt/kitchen_lamp/lightbulb/on")?.payloadString == "false")
        h.provider.setWriteBehavior(.succeed, for: on)
        #expect(try await h.set("kitchen_lamp/lightbulb/on", "true").payloadString == #"{"status":"ok","value":true}"#)
        await h.stop()
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
            ("hall_thermostat/thermostat/target_temperature", "21.25", "step"),
        ])
    func invalidValues(topic: String, payload: String, expected: String) async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        let result = try await h.set(topic, payload)
        let json = try #require(jsonObject(result))
        #expect(json["status"] as? String == "error")
        let error = try #require(json["error"] as? String)
        #expect(error.contains(expected), "\(error)")
        #expect(error.contains(payload) || expected == "read-only", "the error names the value: \(error)")
        try await Task.sleep(for: .milliseconds(100))
        #expect(h.provider.writes.isEmpty)
        await h.stop()
    }

    @Test("toggle, on/off and enum names are accepted")
    func friendlyValues() async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        #expect(try await h.set("kitchen_lamp/lightbulb/on", "toggle").payloadString == #"{"status":"ok","value":true}"#)
        #expect(try await h.set("kitchen_lamp/lightbulb/on", "toggle").payloadString == #"{"status":"ok","value":false}"#)
        #expect(try await h.set("kitchen_lamp/lightbulb/on", "On").payloadString == #"{"status":"ok","value":true}"#)
        #expect(try await h.set("front_door/lock_mechanism/lock_target_state", "SECURED").payloadString == #"{"status":"ok","value":1}"#)
        #expect(try await h.set("hall_thermostat/thermostat/target_heating_cooling_state", "heat").payloadString == #"{"status":"ok","value":1}"#)
        #expect(try await h.set("hall_thermostat/thermostat/target_temperature", " 21.5 ").payloadString == #"{"status":"ok","value":21.5}"#)
        #expect(try await h.observer.retained("hap2mqtt/front_door/lock_mechanism/lock_target_state")?.payloadString == "1")
        #expect(h.provider.writes.count == 6)
        await h.stop()
    }

    /// The warning README "Commands" promises for a retained command, with the command that clears it.
    static let retainedWarning = "ignored a retained command on hap2mqtt/kitchen_lamp/lightbulb/on/set: publish commands "
        + "without the retain flag, and clear it with: mosquitto_pub -r -n -t 'hap2mqtt/kitchen_lamp/lightbulb/on/set'"

    @Test("a retained /set left on the broker is not carried out when the gateway subscribes, with a warning that says how to clear it")
    func retainedCommand() async throws {
        let h = try await GatewayHarness(autoSync: false)
        try await h.observer.publish("hap2mqtt/kitchen_lamp/lightbulb/on/set", "true", retain: true)
        h.provider.completeSync()
        try await h.waitUntilOnline()
        let warning = try await h.log.waitFor(.warning, containing: "ignored a retained command")
        #expect(warning.label == "gateway")
        #expect(warning.message == Self.retainedWarning)
        let result = await h.observer.firstMessage(on: "hap2mqtt/kitchen_lamp/lightbulb/on/set/result", within: .milliseconds(700))
        #expect(result == nil)
        #expect(h.provider.writes.isEmpty)
        #expect(try await h.observer.retained("hap2mqtt/kitchen_lamp/lightbulb/on")?.payloadString == "false")
        await h.stop()
    }

    @Test("a /set published retained while the gateway runs is ignored too (MQTT 5), and clearing it is quiet")
    func liveRetainedCommand() async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        try await h.observer.publish("hap2mqtt/kitchen_lamp/lightbulb/on/set", "true", retain: true)
        #expect(try await h.log.waitFor(.warning, containing: "ignored a retained command").message == Self.retainedWarning)
        let result = await h.observer.firstMessage(on: "hap2mqtt/kitchen_lamp/lightbulb/on/set/result", within: .milliseconds(700))
        #expect(result == nil)
        #expect(h.provider.writes.isEmpty)
        // The user clears it, as the warning says: no result for the empty payload either, and no warning.
        try await h.observer.publish("hap2mqtt/kitchen_lamp/lightbulb/on/set", "", retain: true)
        #expect(await h.observer.firstMessage(on: "hap2mqtt/kitchen_lamp/lightbulb/on/set/result", within: .milliseconds(500)) == nil)
        // The same command without the retain flag is carried out.
        let ok = try await h.set("kitchen_lamp/lightbulb/on", "true")
        #expect(ok.payloadString == #"{"status":"ok","value":true}"#)
        #expect(h.provider.writes.count == 1)
        // Commands are handled in order: the empty one came before this result.
        #expect(h.log.records(.warning, containing: "ignored a retained command").count == 1)
        await h.stop()
    }

    @Test("20 rapid /sets to one characteristic end in the last value with fewer than 20 writes")
    func coalescing() async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        h.provider.setWriteBehavior(.delay(.milliseconds(100)))
        await h.observer.clear()
        for value in 1...20 {
            try await h.observer.publish("hap2mqtt/kitchen_lamp/lightbulb/brightness/set", "\(value)")
        }
        try await eventuallyCount(h.observer, "hap2mqtt/kitchen_lamp/lightbulb/brightness/set/result", 20)
        let results = await h.observer.messages(on: "hap2mqtt/kitchen_lamp/lightbulb/brightness/set/result")
        #expect(results.allSatisfy { jsonObject($0)?["status"] as? String == "ok" })
        #expect(h.provider.writes.count < 20)
        #expect(h.provider.writes.last?.first?.value == .int(20))
        try await waitUntil { (try? await h.observer.retained("hap2mqtt/kitchen_lamp/lightbulb/brightness"))??.payloadString == "20" }
        await h.stop()
    }

    @Test("an MQTT 5 request with a response topic gets its result there with the correlation data")
    func responseTopic() async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        try await h.observer.subscribe(["replies/#"])
        let properties = MQTTProperties(responseTopic: "replies/me", correlationData: Array("req-42".utf8))
        try await h.observer.publish("hap2mqtt/kitchen_lamp/lightbulb/brightness/set", "55", properties: properties)
        let reply = try await h.observer.waitFor(topic: "replies/me")
        #expect(reply.payloadString == #"{"status":"ok","value":55}"#)
        #expect(reply.properties.correlationData == Array("req-42".utf8))
        #expect(reply.retain == false)
        await h.stop()
    }

    @Test("/get reads the accessory and republishes the value")
    func get() async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        await h.observer.clear()
        try await h.observer.publish("hap2mqtt/kitchen_lamp/lightbulb/brightness/get", "")
        let m = try await h.observer.waitFor(topic: "hap2mqtt/kitchen_lamp/lightbulb/brightness")
        #expect(m.payloadString == "0")
        #expect(h.provider.reads.contains { $0.contains(h.address(aid: 2, .Characteristic.brightness)) })
        await h.stop()
    }

    @Test("<accessory>/set writes several characteristics in one request, or none when one is wrong")
    func multiWrite() async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        let good = try await h.set("kitchen_lamp", #"{"lightbulb":{"on":true,"brightness":70,"hue":120}}"#)
        #expect(jsonObject(good)?["status"] as? String == "ok", "\(good.payloadString ?? "")")
        #expect(h.provider.writes.count == 1)
        #expect(h.provider.writes.first?.count == 3)
        #expect(try await h.observer.retained("hap2mqtt/kitchen_lamp/lightbulb/brightness")?.payloadString == "70")
        let bad = try await h.set("kitchen_lamp", #"{"lightbulb":{"on":false,"brightness":700}}"#)
        let json = try #require(jsonObject(bad))
        #expect(json["status"] as? String == "error")
        #expect((json["error"] as? String)?.contains("700") == true)
        #expect(h.provider.writes.count == 1)
        let garbage = try await h.set("kitchen_lamp", "not json")
        #expect(jsonObject(garbage)?["status"] as? String == "error")
        let truncated = try await h.set("kitchen_lamp", #"{"lightbulb":{"on":true}"#)
        #expect((jsonObject(truncated)?["error"] as? String)?.hasPrefix("the payload is not valid JSON") == true, "\(truncated.payloadString ?? "")")
        let array = try await h.set("kitchen_lamp", "[1,2]")
        #expect((jsonObject(array)?["error"] as? String)?.hasPrefix("the payload must be a JSON object") == true, "\(array.payloadString ?? "")")
        #expect(h.provider.writes.count == 1)
        await h.stop()
    }

    @Test("commands to unknown topics and non-UTF-8 payloads get clear errors")
    func unknownTopics() async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        let unknown = try await h.set("nowhere/lightbulb/on", "true")
        #expect((jsonObject(unknown)?["error"] as? String)?.contains("no accessory") == true)
        let noCharacteristic = try await h.set("kitchen_lamp/lightbulb/nonexistent", "1")
        #expect(jsonObject(noCharacteristic)?["status"] as? String == "error", "\(noCharacteristic.payloadString ?? "")")
        await h.observer.clear()
        try await h.observer.publish(MQTTMessage(topic: "hap2mqtt/kitchen_lamp/lightbulb/on/set", payload: [0xFF, 0xFE], qos: .atLeastOnce))
        let binary = try await h.observer.waitFor(topic: "hap2mqtt/kitchen_lamp/lightbulb/on/set/result")
        #expect((jsonObject(binary)?["error"] as? String)?.contains("UTF-8") == true)
        #expect(h.provider.writes.isEmpty)
        await h.stop()
    }

    @Test("bridge requests echo the transaction; identify reaches the accessory")
    func bridgeRequests() async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        try await h.observer.publish("hap2mqtt/bridge/request/identify", #"{"accessory":"kitchen_lamp","transaction":7}"#)
        let ok = try await h.observer.waitFor(topic: "hap2mqtt/bridge/response/identify")
        #expect(jsonObject(ok)?["status"] as? String == "ok")
        #expect(jsonObject(ok)?["transaction"] as? Int == 7)
        #expect(h.provider.identified == [AccessoryID(serverID: GatewayHarness.serverID, aid: 2)])
        await h.observer.clear()
        try await h.observer.publish("hap2mqtt/bridge/request/identify", #"{"accessory":"nobody","transaction":"x"}"#)
        let bad = try await h.observer.waitFor(topic: "hap2mqtt/bridge/response/identify")
        #expect(jsonObject(bad)?["status"] as? String == "error")
        #expect(jsonObject(bad)?["transaction"] as? String == "x")
        await h.stop()
    }

    @Test("rename moves an accessory to new topics and clears the old ones")
    func rename() async throws {
        let h = try await GatewayHarness()
        try await h.waitUntilOnline()
        try await h.observer.publish("hap2mqtt/bridge/request/rename", #"{"accessory":"kitchen_lamp","to":"lamp"}"#)
        let response = try await h.observer.waitFor(topic: "hap2mqtt/bridge/response/rename")
        #expect(jsonObject(response)?["status"] as? String == "ok")
        #expect(try await h.observer.retained("hap2mqtt/lamp/lightbulb/on")?.payloadString == "false")
        #expect(try await h.observer.retained("hap2mqtt/kitchen_lamp/lightbulb/on") == nil)
        #expect(try await h.observer.retained("hap2mqtt/kitchen_lamp/availability") == nil)
        #expect(try await h.set("lamp/lightbulb/on", "1").payloadString == #"{"status":"ok","value":true}"#)

        // To the name it has: ok, and nothing moves or is announced.
        await h.observer.clear()
        try await h.observer.publish("hap2mqtt/bridge/request/rename", #"{"accessory":"lamp","to":"lamp"}"#)
        let same = try await h.observer.waitFor(topic: "hap2mqtt/bridge/response/rename")
        #expect(jsonObject(same)?["status"] as? String == "ok")
        try await Task.sleep(for: .milliseconds(300))
        #expect(await h.observer.messages(on: "hap2mqtt/bridge/event").isEmpty)
        #expect(await h.observer.messages(on: "hap2mqtt/lamp/#").isEmpty, "nothing republished")
        await h.stop()
    }
}

/// Polls `condition` until it holds, failing after `timeout`.
func waitUntil(timeout: Duration = .seconds(5), _ condition: @Sendable () async -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while !(await condition()) {
        guard ContinuousClock.now < deadline else { throw TestSupportError.timedOut("condition not met within \(timeout)") }
        try await Task.sleep(for: .milliseconds(20))
    }
}
