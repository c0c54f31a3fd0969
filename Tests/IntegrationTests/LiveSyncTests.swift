import Foundation
import HAP2MQTTTesting
import HomeModel
import MQTT
import Testing

/// `hap2mqtt run` with a paired HAP-python bridge: the first sync, writes from MQTT, and values that
/// change on the accessory's side.
@Suite("hap2mqtt run with a real accessory: sync, writes, events", .serialized)
struct LiveSyncTests {
    // How fast the first sync is belongs to the benchmarks (start-up in docs/performance.md): a busy
    // machine makes any bound here flaky.
    @Test("after the first sync every readable characteristic has its retained topic with the accessory's real value")
    func firstSync() async throws {
        let live = try await LiveGateway.start(run: false)
        try live.gateway.start()
        _ = try await live.next(on: "hap2mqtt/bridge/accessories", timeout: .seconds(60))
        try await live.waitUntilOnline()

        let list = try await live.accessoryList()
        let status = try await live.accessory.status()
        #expect(Set(list.map(\.name)) == Set(status.accessories.keys).union(["hap2mqtt Test Bridge"]))
        #expect(list.allSatisfy { $0.reachable })
        let snapshot = try await live.retainedSnapshot()
        var checked = 0
        for accessory in list {
            #expect(snapshot[accessory.topic]?.hasPrefix("{") == true, "the JSON topic of \(accessory.name)")
            #expect(snapshot[accessory.topic.appending("/availability")] == "online")
            for service in accessory.services {
                for c in service.characteristics where c.isReadable {
                    let name = try #require(c.name, "\(c.topic) has a catalog name")
                    let real = try await live.accessory.value(accessory: accessory.name, characteristic: name)
                    #expect(
                        samePayload(snapshot[c.topic], real),
                        "\(c.topic): published \(snapshot[c.topic] ?? "nothing"), the accessory has \(real?.description ?? "nil")"
                    )
                    checked += 1
                }
            }
        }
        #expect(checked >= 40, "every readable characteristic of the bridge was compared (\(checked))")
        await live.stop()
    }

    @Test(
        "nothing is published before the first sync: an accessory that hangs holds back bridge/state and every state topic"
    )
    func nothingBeforeSync() async throws {
        let live = try await LiveGateway.start(run: false)
        live.accessory.pause()
        try live.gateway.start()
        try await eventually("the gateway to connect to the broker", timeout: .seconds(20)) {
            live.gateway.log.contains("connected to mqtt://")
        }
        try await Task.sleep(for: .seconds(2))
        // Only the claim on the base topic goes out before: bridge/state offline, the claim held.
        let early = await live.observer.messages(on: "hap2mqtt/#").filter {
            !($0.topic == "hap2mqtt/bridge/state" && $0.bridgeState == "offline" && $0.bridgeClaim == "held")
        }.map(\.topic)
        #expect(early.isEmpty, "published before the first sync: \(early)")
        #expect(await live.observer.messages(on: "hap2mqtt/bridge/state").count == 1, "the claim, held")
        live.accessory.resume()
        try await live.waitUntilOnline(timeout: .seconds(30))
        let first = try #require(await live.observer.messages(on: "hap2mqtt/light/lightbulb/on").first)
        #expect(first.payloadString == "false", "the first value published is the accessory's real one")
        await live.stop()
    }

    @Test(
        "a /set of the light's on and brightness runs the accessory's setter, then the state changes with an ok result")
    func setLight() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        try await live.publish("hap2mqtt/light/lightbulb/on/set", "ON")
        try await live.waitFor("hap2mqtt/light/lightbulb/on", "true")
        // The fixture reports setter calls on its standard output, which can trail the gateway's MQTT
        // messages; that the state follows the setter is checked in HomeStoreWriteTests with a held write.
        #expect(
            try await live.accessory.waitForSetterCalls(count: 1).contains(
                .init(accessory: "Light", characteristic: "On", value: .bool(true))),
            "the accessory's setter did not run: \(live.accessory.setterCalls)")
        try await live.waitFor("hap2mqtt/light/lightbulb/on/set/result", #"{"status":"ok","value":true}"#)

        let replies = "hap2mqtt/response/\(UUID().uuidString)"
        try await live.observer.subscribe([replies])
        let properties = MQTTProperties(responseTopic: replies, correlationData: Array("brightness-1".utf8))
        try await live.publish("hap2mqtt/light/lightbulb/brightness/set", "42", properties: properties)
        try await live.waitFor("hap2mqtt/light/lightbulb/brightness", "42")
        #expect(
            try await live.accessory.waitForSetterCalls(count: 2).contains(
                .init(accessory: "Light", characteristic: "Brightness", value: .int(42))))
        let reply = try await live.waitFor(replies, #"{"status":"ok","value":42}"#)
        #expect(reply.properties.correlationData == Array("brightness-1".utf8))
        try await live.waitFor("hap2mqtt/light/lightbulb/brightness/set/result", #"{"status":"ok","value":42}"#)
        #expect(try await live.accessory.value(accessory: "Light", characteristic: "Brightness") == .int(42))
        #expect(try await live.retained("hap2mqtt/light/lightbulb/brightness") == "42")
        await live.stop()
    }

    @Test("a value changed on the accessory's side reaches its topic")
    func accessoryEvents() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        try await live.accessory.setValue(
            accessory: "Temperature", characteristic: "CurrentTemperature", value: .float(23.5))
        try await live.waitFor("hap2mqtt/temperature/temperature_sensor/current_temperature", "23.5")
        try await live.accessory.setValue(accessory: "Switch", characteristic: "On", value: .bool(true))
        try await live.waitFor("hap2mqtt/switch/switch/on", "true")
        #expect(live.accessory.setterCalls.isEmpty, "a change on the accessory's side is not written back")
        #expect(try await live.retained("hap2mqtt/switch/switch/on") == "true")
        await live.stop()
    }

    @Test("an invalid value gets an error and reaches no setter; a write the accessory refuses names its HAP status")
    func refusedWrites() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        for bad in ["150", "banana"] {
            await live.observer.clear()
            try await live.publish("hap2mqtt/light/lightbulb/brightness/set", bad)
            let result = try await live.next(on: "hap2mqtt/light/lightbulb/brightness/set/result")
            #expect(
                result.payloadString?.contains(#""status":"error""#) == true, "\(bad): \(result.payloadString ?? "")")
        }
        #expect(live.accessory.setterCalls.isEmpty)
        #expect(try await live.retained("hap2mqtt/light/lightbulb/brightness") == "0")

        try await live.accessory.failWrites(
            accessory: "Light", characteristic: "Brightness", status: .invalidValueInRequest)
        await live.observer.clear()
        try await live.publish("hap2mqtt/light/lightbulb/brightness/set", "30")
        let refused = try await live.next(on: "hap2mqtt/light/lightbulb/brightness/set/result")
        let text = refused.payloadString ?? ""
        #expect(
            text.contains(#""status":"error""#) && text.contains(#""hap_status":-70410"#) && text.contains("-70410"),
            "\(text)")
        #expect(
            try await live.accessory.waitForRejectedWrites(count: 1) == [
                .init(accessory: "Light", characteristic: "Brightness", value: .int(30), status: .invalidValueInRequest)
            ])
        #expect(live.accessory.setterCalls.isEmpty)
        #expect(await live.observer.messages(on: "hap2mqtt/light/lightbulb/brightness").isEmpty, "the state stays")
        #expect(try await live.retained("hap2mqtt/light/lightbulb/brightness") == "0")
        await live.stop()
    }

    @Test("the lock's target state (tw) is a timed write: /prepare first, then the write with its pid")
    func timedWrite() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        try await live.publish("hap2mqtt/lock/lock_mechanism/lock_target_state/set", "secured")
        try await live.waitFor(
            "hap2mqtt/lock/lock_mechanism/lock_target_state/set/result", #"{"status":"ok","value":1}"#)
        // The fixture prints its /prepare line before its setter's line on the same stdout, which reaches the
        // test on a thread of its own, after the answer may have: once the setter's line is here, so is the
        // /prepare line.
        #expect(
            try await live.accessory.waitForSetterCalls(count: 1) == [
                .init(accessory: "Lock", characteristic: "LockTargetState", value: .int(1), timed: true)
            ])
        #expect(live.accessory.prepareRequests.count == 1)
        try await live.waitFor("hap2mqtt/lock/lock_mechanism/lock_current_state", "1")

        try await live.publish("hap2mqtt/switch/switch/on/set", "true")
        try await live.waitFor("hap2mqtt/switch/switch/on/set/result", #"{"status":"ok","value":true}"#)
        #expect(
            try await live.accessory.waitForSetterCalls(count: 2).last
                == .init(accessory: "Switch", characteristic: "On", value: .bool(true), timed: false))
        #expect(live.accessory.prepareRequests.count == 1, "a characteristic without tw is written without /prepare")
        await live.stop()
    }

    @Test("bridge/request/identify writes the accessory's Identify characteristic")
    func identify() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        try await live.publish("hap2mqtt/bridge/request/identify", #"{"accessory":"light","transaction":"t-1"}"#)
        let response = try await live.next(on: "hap2mqtt/bridge/response/identify")
        #expect(response.payloadString?.contains(#""status":"ok""#) == true, "\(response.payloadString ?? "")")
        #expect(response.payloadString?.contains(#""transaction":"t-1""#) == true)
        #expect(
            try await live.accessory.waitForSetterCalls(count: 1) == [
                .init(accessory: "Light", characteristic: "Identify", value: .bool(true))
            ])
        await live.stop()
    }

    @Test("an accessory excluded in the configuration gets no topics and takes no commands")
    func excluded() async throws {
        let pairingID = "AA:BB:CC:00:00:01"
        let live = try await LiveGateway.start(
            extraYAML: "", pairingID: pairingID, run: false)
        let yaml = try String(contentsOf: live.gateway.configurationFile, encoding: .utf8)
            .replacingOccurrences(
                of: "homekit:\n", with: "homekit:\n  accessories:\n    \"\(pairingID)/3\": { exclude: true }\n")
        try TestFile.write(yaml, to: live.gateway.configurationFile)
        try live.gateway.start()
        try await live.waitUntilOnline()
        let list = try await live.accessoryList()
        #expect(!list.map(\.name).contains("Switch"))
        #expect(list.map(\.name).contains("Light"))
        #expect(try await live.retainedSnapshot().keys.filter { $0.hasPrefix("hap2mqtt/switch") }.isEmpty)
        try await live.publish("hap2mqtt/switch/switch/on/set", "true")
        try await live.publish("hap2mqtt/light/lightbulb/on/set", "true")
        try await live.waitFor("hap2mqtt/light/lightbulb/on", "true")
        #expect(try await live.accessory.waitForSetterCalls(count: 1).map(\.accessory) == ["Light"])
        await live.stop()
    }
}
