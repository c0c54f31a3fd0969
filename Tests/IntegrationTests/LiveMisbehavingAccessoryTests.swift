import Foundation
import HAP2MQTTTesting
import HomeModel
import MQTT
import Testing

/// Accessories that misbehave as real ones do, made with HAP-python (`hap_fixture.py`'s `misbehave`): one
/// that advertises events and never sends them, one that answers reads of many characteristics with
/// `-70407` (out of resources), one that closes idle connections. The real gateway, paired with it over a
/// real broker, must learn each (docs/DESIGN.md "Availability and recovery"), keep it in the state
/// directory, show it in `bridge/health`, and keep every value flowing.
@Suite("hap2mqtt run with a misbehaving accessory", .serialized)
struct LiveMisbehavingAccessoryTests {
    /// The gateway's view of the accessory server, read where a user reads it.
    struct Views {
        let live: LiveGateway

        /// Starts `hap2mqtt run` and waits until the home is published.
        func run() async throws {
            await live.observer.clear()
            try live.gateway.start()
            try await live.waitUntilOnline()
        }

        /// The accessory server's entry of a fresh `bridge/health` (asked for with `health_check`).
        func health() async throws -> [String: Any] {
            await live.observer.clear()
            try await live.publish("hap2mqtt/bridge/request/health_check", "{}")
            let message = try await live.next(on: "hap2mqtt/bridge/health")
            let health = try #require(
                (try? JSONSerialization.jsonObject(with: Data(message.payload))) as? [String: Any])
            return try #require((health["accessory_servers"] as? [[String: Any]])?.first, "\(health)")
        }

        /// The learned profile's file in the state directory, parsed; nil when there is none.
        func profileFile() throws -> [String: Any]? {
            let directory = live.gateway.stateDirectory
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            guard let name = names.first(where: { $0.hasPrefix("profile-") && $0.hasSuffix(".json") }) else {
                return nil
            }
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            return try JSONSerialization.jsonObject(with: data) as? [String: Any]
        }
    }

    @Test(
        "a characteristic whose events never come is found by a read, polled from then on with one log line, and the profile is kept and shown"
    )
    func silentEvents() async throws {
        let live = try await LiveGateway.start(
            run: false, homekit: ["catchup_interval": "1", "keepalive_interval": "1", "poll_interval": "2"])
        let setup = Views(live: live)
        try await live.accessory.misbehave(silentEvents: [("Light", "Brightness")])
        try await setup.run()
        try await live.waitFor("hap2mqtt/light/availability", "online")

        // An evented characteristic that does send its events is never suspected.
        try await live.accessory.setValue(accessory: "Light", characteristic: "On", value: .bool(true))
        try await live.waitFor("hap2mqtt/light/lightbulb/on", "true")
        // The silent one: no event comes, the catch-up read finds the change.
        try await live.accessory.setValue(accessory: "Light", characteristic: "Brightness", value: .int(37))
        try await live.waitFor("hap2mqtt/light/lightbulb/brightness", "37")
        try await eventually("the gateway logs that the Brightness sends no events", timeout: .seconds(60)) {
            live.gateway.log.contains("sends no events for characteristic")
        }
        let server = try await setup.health()
        let profile = try #require(server["profile"] as? [String: Any], "\(server)")
        let polled = try #require(profile["polled_instead_of_events"] as? [String], "\(profile)")
        #expect(polled.count == 1, "only the Brightness: \(polled)")
        #expect(polled.first?.hasPrefix("2.") == true, "the Light's (aid 2): \(polled)")
        #expect(server["offline_reason"] is NSNull, "connected: no offline reason: \(server)")
        let stored = try #require(try setup.profileFile(), "the profile is in the state directory")
        #expect(stored["poll_instead_of_events"] as? [String] == polled)

        // Polled now: every further change arrives, and the line is not repeated.
        for value in [52, 68] {
            try await live.accessory.setValue(
                accessory: "Light", characteristic: "Brightness", value: .int(Int64(value)))
            try await live.waitFor("hap2mqtt/light/lightbulb/brightness", String(value))
        }
        #expect(live.gateway.log.components(separatedBy: "sends no events for characteristic").count == 2)

        // A restart starts from the stored profile.
        await live.gateway.stop()
        try await setup.run()
        #expect(live.gateway.log.contains("has a learned profile"))
        let again = try await setup.health()
        #expect((again["profile"] as? [String: Any])?["polled_instead_of_events"] as? [String] == polled)
        await live.stop()
    }

    @Test(
        "reads of more characteristics than the accessory takes are split after its -70407, the size remembered across a restart"
    )
    func outOfResources() async throws {
        let live = try await LiveGateway.start(run: false)
        let setup = Views(live: live)
        try await live.accessory.setValue(accessory: "Light", characteristic: "Brightness", value: .int(61))
        try await live.accessory.misbehave(readLimit: 4)
        try await setup.run()
        // The first sync reads every value: refused at first, then in batches the accessory takes.
        try await live.waitFor("hap2mqtt/light/availability", "online")
        try await live.waitFor("hap2mqtt/light/lightbulb/brightness", "61")
        try await live.waitFor("hap2mqtt/thermostat/availability", "online")
        let misbehaviour = try await live.accessory.misbehaviour()
        #expect(misbehaviour.refusedReads >= 1)
        #expect(misbehaviour.largestRead <= 4 && misbehaviour.largestRead >= 1, "\(misbehaviour)")
        #expect(live.gateway.log.contains("out of resources"), "\(live.gateway.log.suffix(2000))")
        let server = try await setup.health()
        let limit = try #require((server["profile"] as? [String: Any])?["read_batch_limit"] as? Int, "\(server)")
        #expect(limit <= 4 && limit >= 1)
        #expect(try setup.profileFile()?["read_batch_limit"] as? Int == limit)

        // After a restart the sync reads every value again, in batches of the remembered size: none refused.
        await live.gateway.stop()
        await live.observer.clear()
        try await setup.run()
        try await live.waitFor("hap2mqtt/light/availability", "online")
        #expect(try await live.accessory.misbehaviour().refusedReads == misbehaviour.refusedReads)
        await live.stop()
    }

    @Test(
        "an accessory that closes idle connections gets a keep-alive below its limit, nothing goes offline, and an accessory gone says why"
    )
    func idleDrops() async throws {
        let live = try await LiveGateway.start(run: false)
        let setup = Views(live: live)
        try await live.accessory.misbehave(idleClose: .seconds(3))
        try await setup.run()
        try await live.waitFor("hap2mqtt/light/availability", "online")
        try await eventually("the keep-alive is learned", timeout: .seconds(60)) {
            live.gateway.log.contains("keeping its connection alive every")
        }
        let server = try await setup.health()
        let profile = try #require(server["profile"] as? [String: Any], "\(server)")
        let idle = try #require(profile["idle_limit"] as? Double, "\(profile)")
        #expect(idle >= 2.5 && idle <= 4, "\(profile)")
        #expect(profile["keepalive"] as? Double ?? 99 <= idle / 2 + 0.1, "\(profile)")
        #expect(try setup.profileFile()?["idle_limit"] as? Double != nil)

        // Once learned, the accessory closes no more connections (three idle limits pass).
        let closes = try await live.accessory.misbehaviour().idleCloses
        let since = ContinuousClock.now
        try await eventually("three idle limits pass", timeout: .seconds(60)) {
            ContinuousClock.now - since >= .seconds(9)
        }
        #expect(try await live.accessory.misbehaviour().idleCloses == closes, "the keep-alive stays below it")
        let availability = await live.observer.messages(on: "hap2mqtt/+/availability")
        #expect(!availability.contains { $0.payloadString == "offline" }, "nothing went offline")

        // The accessory goes away: the reason comes as a code in bridge/accessories and bridge/health.
        await live.accessory.kill()
        try await live.waitFor("hap2mqtt/light/availability", "offline", timeout: .seconds(60))
        try await eventually("bridge/accessories says why the Light is offline", timeout: .seconds(60)) {
            let list = try await live.observer.retained("hap2mqtt/bridge/accessories")
            let accessories =
                (list.flatMap { try? JSONSerialization.jsonObject(with: Data($0.payload)) }) as? [[String: Any]]
            let light = accessories?.first { $0["slug"] as? String == "light" }
            return ["unreachable", "connection_failed", "connection_lost"].contains(
                light?["offline_reason"] as? String ?? "")
        }
        let gone = try await setup.health()
        #expect(["unreachable", "connection_failed"].contains(gone["offline_reason"] as? String ?? ""), "\(gone)")
        await live.stop()
    }
}
