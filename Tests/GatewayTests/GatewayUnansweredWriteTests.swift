import Foundation
import Gateway
import HAP2MQTTTesting
import HomeModel
import HomeStore
import MQTT
import Testing

/// Writes sent without an answer: `unknown` on the result topic, then a second result once the provider
/// read the value back (docs/DESIGN.md "Writes"; the HAP side is in LiveUnansweredWriteTests).
@Suite("Gateway: results of writes without an answer")
struct GatewayUnansweredWriteTests {
    @Test("a /set without an answer is unknown, then settled applied or not_applied on the same topic")
    func singleSet() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let brightness = h.address(aid: 2, .Characteristic.brightness)
            h.provider.setWriteBehavior(.unanswered)
            let unknown = try await h.set("kitchen_lamp/lightbulb/brightness", "70")
            #expect(
                unknown.payloadString
                    == #"{"status":"unknown","error":"the in-memory accessory did not answer; the write may have been carried out: it is read back when the accessory answers again","hap_status":-70408}"#
            )
            let mark = h.mqtt.published.count
            h.provider.send(.writesSettled([WriteReadBack(address: brightness, written: .int(70), value: .int(70))]))
            let applied = try await h.waitFor(
                topic: "hap2mqtt/kitchen_lamp/lightbulb/brightness/set/result", after: mark)
            #expect(applied.payloadString == #"{"status":"ok","settled":"applied","value":70}"#)

            _ = try await h.set("kitchen_lamp/lightbulb/brightness", "80")
            let again = h.mqtt.published.count
            h.provider.send(.writesSettled([WriteReadBack(address: brightness, written: .int(80), value: .int(70))]))
            let notApplied = try await h.waitFor(
                topic: "hap2mqtt/kitchen_lamp/lightbulb/brightness/set/result", after: again)
            #expect(
                notApplied.payloadString
                    == #"{"status":"error","settled":"not_applied","error":"the write of 80 was not carried out: the accessory holds 70","value":70}"#
            )
        }
    }

    @Test("a multi-write without an answer is unknown, then each characteristic is settled on <accessory>/set/result")
    func accessorySet() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let brightness = h.address(aid: 2, .Characteristic.brightness)
            h.provider.setWriteBehavior(.unanswered)
            let mark = h.mqtt.published.count
            try await h.send("hap2mqtt/kitchen_lamp/set", #"{"lightbulb":{"brightness":70}}"#)
            let unknown = try await h.waitFor(topic: "hap2mqtt/kitchen_lamp/set/result", after: mark)
            #expect(jsonObject(unknown)?["status"] as? String == "unknown", "\(unknown.payloadString ?? "")")
            let again = h.mqtt.published.count
            h.provider.send(.writesSettled([WriteReadBack(address: brightness, written: .int(70), value: .int(70))]))
            let settled = try await h.waitFor(topic: "hap2mqtt/kitchen_lamp/set/result", after: again)
            #expect(
                settled.payloadString
                    == #"{"status":"ok","settled":"applied","results":{"lightbulb":{"brightness":{"status":"ok","settled":"applied","value":70}}}}"#
            )
        }
    }
}
