import Foundation
import HAP2MQTTTesting
import MQTT
import Testing

/// Slugs that no topic can carry: a rename is refused with a clear error, and an impossible entry in
/// `slugs.json` is reported and skipped, so that the gateway still starts. The real binary, a real
/// mosquitto and the real HAP-python bridge.
@Suite("Slug lengths")
struct SlugLimitTests {
    @Test(
        "a 70,000-character slug in slugs.json is skipped with a warning and the gateway comes online; a rename to one is refused"
    )
    func impossibleSlug() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        let light = try #require(try await live.accessoryList().first { $0.name == "Light" })
        await live.gateway.stop()

        let huge = String(repeating: "a", count: 70_000)
        let slugs = live.gateway.stateDirectory.appendingPathComponent("slugs.json")
        var map = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: slugs)) as? [String: String])
        map[light.id] = huge
        map["not an accessory id"] = "whatever"
        try JSONSerialization.data(withJSONObject: map).write(to: slugs)
        await live.observer.clear()
        try live.gateway.start()
        try await live.waitForBridgeState("online", timeout: .seconds(60))
        let log = live.gateway.log
        #expect(
            log.contains(
                "slugs.json: skipped the slug of accessory \(light.id): it is 70000 characters long; a slug has at most 64; it gets a new one"
            ))
        #expect(log.contains("slugs.json: skipped the entry \"not an accessory id\": not an accessory id"))
        let relisted = try #require(try await live.accessoryList().first { $0.id == light.id })
        #expect(relisted.slug == light.slug, "the Light gets its slug from its name again")
        #expect(try await live.retained("hap2mqtt/\(light.slug)/availability") == "online")

        // Within mqtt.max_command_size (a 70,000-character request is refused for its size already).
        let tooLong = String(repeating: "a", count: 1_000)
        try await live.publish("hap2mqtt/bridge/request/rename", #"{"accessory":"\#(light.slug)","to":"\#(tooLong)"}"#)
        let refused = try await live.next(on: "hap2mqtt/bridge/response/rename")
        #expect(
            refused.payloadString
                == #"{"status":"error","data":{},"error":"cannot use 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…' as a name: it is 1000 characters long; a slug has at most 64"}"#
        )
        #expect(try !String(contentsOf: slugs, encoding: .utf8).contains(tooLong.prefix(65)))

        let longest = String(repeating: "b", count: 64)
        await live.observer.clear()
        try await live.publish("hap2mqtt/bridge/request/rename", #"{"accessory":"\#(light.slug)","to":"\#(longest)"}"#)
        let renamed = try await live.next(on: "hap2mqtt/bridge/response/rename")
        #expect(renamed.payloadString?.hasPrefix(#"{"status":"ok""#) == true, "\(renamed.payloadString ?? "")")
        try await live.waitFor("hap2mqtt/\(longest)/availability", "online")
        await live.stop()
    }
}
