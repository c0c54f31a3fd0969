import Foundation
import HAP2MQTTTesting
import HomeModel
import MQTT
import Testing

/// A write that went out and got no answer: `/set/result` says `unknown` at the write time-out, not that it
/// failed, and a second result settles it once the accessory answers again and the value was read back. A
/// write that never went out fails, and the accessory never carries it out. The gateway reaches the real
/// HAP-python bridge through `TCPProxy`, which takes the link down without a word after the request.
@Suite("hap2mqtt run with a real accessory: writes without an answer", .serialized)
struct LiveUnansweredWriteTests {
    static let brightness = "hap2mqtt/light/lightbulb/brightness/set"
    static let on = "hap2mqtt/light/lightbulb/on/set"

    @Test("a write the accessory carried out but whose answer was lost is unknown, then settled as applied")
    func answerLost() async throws {
        let (live, proxy) = try await LiveGateway.startBehindProxy()
        defer { proxy.stop() }
        try await Self.freshConnection(live)
        // The request reaches the accessory, which carries it out; its answer is lost, as on a link that
        // failed right after the request went out.
        proxy.linkDown(true, silently: true, refusing: true, passingRequests: true)
        try await live.publish(Self.brightness, "70")
        let unknown = try await Self.result(live, Self.brightness) { $0.contains(#""status":"unknown""#) }
        #expect(unknown.contains(#""hap_status":-70408"#), "\(unknown)")
        #expect(unknown.contains("did not answer PUT /characteristics within 10 s"), "\(unknown)")
        #expect(unknown.contains("may have been carried out"), "\(unknown)")
        #expect(try await live.accessory.value(accessory: "Light", characteristic: "Brightness") == .int(70))

        proxy.linkDown(false)
        let settled = try await Self.result(live, Self.brightness) { $0.contains("settled") }
        #expect(settled == #"{"status":"ok","settled":"applied","value":70}"#)
        try await live.waitFor("hap2mqtt/light/lightbulb/brightness", "70")
        await live.stop()
    }

    @Test(
        "a write lost on the way is unknown, then settled as not applied; one queued behind it fails within the time-out and a second, and is never carried out"
    )
    func requestLost() async throws {
        let (live, proxy) = try await LiveGateway.startBehindProxy()
        defer { proxy.stop() }
        let onBefore = try await live.accessory.value(accessory: "Light", characteristic: "On")
        let onWritten = onBefore == .bool(true) ? "false" : "true"
        try await Self.freshConnection(live)
        proxy.linkDown(true, silently: true, refusing: true)
        try await live.publish(Self.brightness, "70")
        let queuedAt = ContinuousClock.now
        try await live.publish(Self.on, onWritten)
        let failed = try await Self.result(live, Self.on) { _ in true }
        let waited = ContinuousClock.now - queuedAt
        // homekit.write_timeout is 10 s: the answer comes by then and a second (with room for the test's
        // own MQTT round trip on a busy machine); a write sent after the first one failed would take 20.
        #expect(waited < .seconds(12), "answered after \(waited)")
        // Its time ran out in the queue, or while it waited for a new connection: either way it says that
        // it was not sent, never that the accessory did not answer it.
        #expect(failed.hasPrefix(#"{"status":"error","error":""#), "\(failed)")
        #expect(failed.contains("was not sent") || failed.contains("offline since"), "\(failed)")
        #expect(failed.contains(#""hap_status":-70402"#), "\(failed)")
        let unknown = try await Self.result(live, Self.brightness) { $0.contains(#""status":"unknown""#) }
        #expect(unknown.contains(#""hap_status":-70408"#), "\(unknown)")

        proxy.linkDown(false)
        let settled = try await Self.result(live, Self.brightness) { $0.contains("settled") }
        #expect(
            settled.hasPrefix(
                #"{"status":"error","settled":"not_applied","error":"the write of 70 was not carried out"#),
            "\(settled)")
        #expect(settled.hasSuffix(#""value":40}"#), "\(settled)")
        // The read-back came on the new connection: whatever was left of the old one is gone, and the
        // write reported failed was not sent on the new one either.
        #expect(try await live.accessory.value(accessory: "Light", characteristic: "Brightness") == .int(40))
        #expect(try await live.accessory.value(accessory: "Light", characteristic: "On") == onBefore)
        try await live.publish(Self.brightness, "45")
        _ = try await Self.result(live, Self.brightness) { $0 == #"{"status":"ok","value":45}"# }
        #expect(try await live.accessory.value(accessory: "Light", characteristic: "On") == onBefore)
        await live.stop()
    }

    /// A write answered just now (brightness 40), so that the next one goes out at once: a connection
    /// quiet for a while is checked first, and the check would find the link down before the write.
    private static func freshConnection(_ live: LiveGateway) async throws {
        try await live.publish(brightness, "40")
        _ = try await result(live, brightness) { $0 == #"{"status":"ok","value":40}"# }
        await live.observer.clear()
    }

    /// The first result on `topic`'s `/result` that `matches`.
    private static func result(_ live: LiveGateway, _ topic: String, _ matches: @escaping @Sendable (String) -> Bool)
        async throws -> String
    {
        let message = try await live.observer.waitFor(topic: topic + "/result", timeout: .seconds(60)) {
            matches($0.payloadString ?? "")
        }
        return message.payloadString ?? ""
    }
}
