import Foundation
import HAP2MQTTTesting
import HomeModel
import MQTT
import Testing

/// An accessory that sends events as fast as it can, millions a minute: the gateway's memory must stay
/// bounded, not grow for good, and a `/set` must still be answered meanwhile. The real binary against the
/// real HAP-python bridge, whose fixture floods one characteristic (`floodEvents`).
@Suite("hap2mqtt run with a real accessory: an event flood", .serialized)
struct LiveEventFloodTests {
    /// The most the gateway's peak resident size may grow over its size when ready, through the flood.
    static let growthLimit = 40 * 1024 * 1024

    @Test(
        "while an accessory floods events, memory stays bounded and a /set is answered; afterwards its topic shows the last value",
        .timeLimit(.minutes(5)))
    func eventFlood() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        try await live.waitFor("hap2mqtt/light/availability", "online")
        let pid = try #require(live.gateway.processIdentifier)
        let ready = try #require(LiveFuzzTests.residentBytes(of: pid))

        try await live.accessory.floodEvents(accessory: "Light", characteristic: "Brightness", seconds: 20)
        try await eventually("the flood is under way") { try await live.accessory.floodStatus().events > 1000 }
        await live.observer.clear()
        try await live.publish("hap2mqtt/switch/switch/on/set", "true")
        let result = try await live.next(on: "hap2mqtt/switch/switch/on/set/result")
        #expect(result.payloadString == #"{"status":"ok","value":true}"#)
        #expect(try await live.accessory.floodStatus().running, "the /set was answered during the flood")
        try await eventually("the flood ends", timeout: .seconds(60)) {
            try await !live.accessory.floodStatus().running
        }
        let flood = try await live.accessory.floodStatus()
        // The fixture ends a flood at the characteristic's maximum: the newest value wins.
        try await live.waitFor("hap2mqtt/light/lightbulb/brightness", "100", timeout: .seconds(60))
        let peak = try #require(LiveFuzzTests.residentBytes(of: pid, field: "VmHWM"))
        #expect(
            peak - ready <= Self.growthLimit,
            "\(flood.events) events: resident \(ready / 1_048_576) MB when ready, peak \(peak / 1_048_576) MB")
        #expect(live.gateway.isRunning)
        await live.stop()
    }
}
