import Foundation
import HAP2MQTTTesting
import HomeModel
import MQTT
import Testing

/// Accessories that misbehave as real ones do, made with HAP-python (`hap_fixture.py`'s `misbehave`): one
/// that advertises events and never sends them, one that answers reads of many characteristics with
/// `-70407` (out of resources), one that closes idle connections. The real gateway, paired with it over a
/// real broker, must learn each (docs/DESIGN.md "Accessories that misbehave"), keep it in the state
/// directory, show it in `bridge/health`, and keep every value flowing.
@Suite("hap2mqtt run with a misbehaving accessory", .serialized)
struct LiveMisbehavingAccessoryTests {
    /// A gateway on a fresh broker, paired with a fresh HAP-python bridge, not started yet.
    struct Setup {
        let broker: MosquittoBroker
        let accessory: HAPPythonAccessory
        let gateway: GatewayProcess
        let observer: MQTTTestClient

        static func start(homekit: [String: String]) async throws -> Setup {
            let broker = try await MosquittoBroker()
            let accessory = try await HAPPythonAccessory.start()
            let gateway = try GatewayProcess(brokerURL: broker.url, homekit: homekit)
            try gateway.start([
                "pair", "--host", "127.0.0.1", "--port", String(accessory.port), "--code", accessory.setupCode,
            ])
            try await eventually("hap2mqtt pair to finish", timeout: .seconds(30)) { !gateway.isRunning }
            try #require(gateway.terminationStatus == 0, "hap2mqtt pair failed:\n\(gateway.log)")
            let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/#"])
            return Setup(broker: broker, accessory: accessory, gateway: gateway, observer: observer)
        }

        /// Starts `hap2mqtt run` and waits until the home is published.
        func run() async throws {
            try gateway.start()
            _ = try await observer.waitFor(topic: "hap2mqtt/bridge/state", timeout: .seconds(60)) {
                $0.payloadString?.contains("online") == true
            }
        }

        func waitFor(_ topic: String, _ payload: String, timeout: Duration = .seconds(30)) async throws {
            do {
                _ = try await observer.waitFor(topic: topic, timeout: timeout) { $0.payloadString == payload }
            } catch {
                Issue.record("\(topic) never showed \(payload); the gateway's log ends:\n\(gateway.log.suffix(3000))")
                throw error
            }
        }

        /// The accessory server's entry of a fresh `bridge/health` (asked for with `health_check`).
        func health() async throws -> [String: Any] {
            await observer.clear()
            try await observer.publish("hap2mqtt/bridge/request/health_check", "{}")
            let message = try await observer.waitFor(topic: "hap2mqtt/bridge/health", timeout: .seconds(30))
            let health = try #require(
                (try? JSONSerialization.jsonObject(with: Data(message.payload))) as? [String: Any])
            return try #require((health["accessory_servers"] as? [[String: Any]])?.first, "\(health)")
        }

        /// The learned profile's file in the state directory, parsed; nil when there is none.
        func profileFile() throws -> [String: Any]? {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: gateway.stateDirectory.path)) ?? []
            guard let name = names.first(where: { $0.hasPrefix("profile-") && $0.hasSuffix(".json") }) else {
                return nil
            }
            let data = try Data(contentsOf: gateway.stateDirectory.appendingPathComponent(name))
            return try JSONSerialization.jsonObject(with: data) as? [String: Any]
        }

        func stop() async {
            await gateway.stop()
            await observer.disconnect()
            await accessory.stop()
            await broker.stop()
        }
    }

    @Test(
        "a characteristic whose events never come is found by a read, polled from then on with one log line, and the profile is kept and shown"
    )
    func silentEvents() async throws {
        let setup = try await Setup.start(homekit: [
            "catchup_interval": "1", "keepalive_interval": "1", "poll_interval": "2",
        ])
        try await setup.accessory.misbehave(silentEvents: [("Light", "Brightness")])
        try await setup.run()
        try await setup.waitFor("hap2mqtt/light/availability", "online")

        // An evented characteristic that does send its events is never suspected.
        try await setup.accessory.setValue(accessory: "Light", characteristic: "On", value: .bool(true))
        try await setup.waitFor("hap2mqtt/light/lightbulb/on", "true")
        // The silent one: no event comes, the catch-up read finds the change.
        try await setup.accessory.setValue(accessory: "Light", characteristic: "Brightness", value: .int(37))
        try await setup.waitFor("hap2mqtt/light/lightbulb/brightness", "37")
        try await eventually("the gateway logs that the Brightness sends no events", timeout: .seconds(60)) {
            setup.gateway.log.contains("sends no events for characteristic")
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
            try await setup.accessory.setValue(
                accessory: "Light", characteristic: "Brightness", value: .int(Int64(value)))
            try await setup.waitFor("hap2mqtt/light/lightbulb/brightness", String(value))
        }
        #expect(setup.gateway.log.components(separatedBy: "sends no events for characteristic").count == 2)

        // A restart starts from the stored profile.
        await setup.gateway.stop()
        try await setup.run()
        #expect(setup.gateway.log.contains("has a learned profile"))
        let again = try await setup.health()
        #expect((again["profile"] as? [String: Any])?["polled_instead_of_events"] as? [String] == polled)
        await setup.stop()
    }

    @Test(
        "reads of more characteristics than the accessory takes are split after its -70407, the size remembered across a restart"
    )
    func outOfResources() async throws {
        let setup = try await Setup.start(homekit: [:])
        try await setup.accessory.setValue(accessory: "Light", characteristic: "Brightness", value: .int(61))
        try await setup.accessory.misbehave(readLimit: 4)
        try await setup.run()
        // The first sync reads every value: refused at first, then in batches the accessory takes.
        try await setup.waitFor("hap2mqtt/light/availability", "online")
        try await setup.waitFor("hap2mqtt/light/lightbulb/brightness", "61")
        try await setup.waitFor("hap2mqtt/thermostat/availability", "online")
        let misbehaviour = try await setup.accessory.misbehaviour()
        #expect(misbehaviour.refusedReads >= 1)
        #expect(misbehaviour.largestRead <= 4 && misbehaviour.largestRead >= 1, "\(misbehaviour)")
        #expect(setup.gateway.log.contains("out of resources"), "\(setup.gateway.log.suffix(2000))")
        let server = try await setup.health()
        let limit = try #require((server["profile"] as? [String: Any])?["read_batch_limit"] as? Int, "\(server)")
        #expect(limit <= 4 && limit >= 1)
        #expect(try setup.profileFile()?["read_batch_limit"] as? Int == limit)

        // After a restart the sync reads every value again, in batches of the remembered size: none refused.
        await setup.gateway.stop()
        await setup.observer.clear()
        try await setup.run()
        try await setup.waitFor("hap2mqtt/light/availability", "online")
        #expect(try await setup.accessory.misbehaviour().refusedReads == misbehaviour.refusedReads)
        await setup.stop()
    }

    @Test(
        "an accessory that closes idle connections gets a keep-alive below its limit, nothing goes offline, and an accessory gone says why"
    )
    func idleDrops() async throws {
        let setup = try await Setup.start(homekit: [:])
        try await setup.accessory.misbehave(idleClose: .seconds(3))
        try await setup.run()
        try await setup.waitFor("hap2mqtt/light/availability", "online")
        try await eventually("the keep-alive is learned", timeout: .seconds(60)) {
            setup.gateway.log.contains("keeping its connection alive every")
        }
        let server = try await setup.health()
        let profile = try #require(server["profile"] as? [String: Any], "\(server)")
        let idle = try #require(profile["idle_limit"] as? Double, "\(profile)")
        #expect(idle >= 2.5 && idle <= 4, "\(profile)")
        #expect(profile["keepalive"] as? Double ?? 99 <= idle / 2 + 0.1, "\(profile)")
        #expect(try setup.profileFile()?["idle_limit"] as? Double != nil)

        // Once learned, the accessory closes no more connections (three idle limits pass).
        let closes = try await setup.accessory.misbehaviour().idleCloses
        let since = ContinuousClock.now
        try await eventually("three idle limits pass", timeout: .seconds(60)) {
            ContinuousClock.now - since >= .seconds(9)
        }
        #expect(try await setup.accessory.misbehaviour().idleCloses == closes, "the keep-alive stays below it")
        let availability = await setup.observer.messages(on: "hap2mqtt/+/availability")
        #expect(!availability.contains { $0.payloadString == "offline" }, "nothing went offline")

        // The accessory goes away: the reason comes as a code in bridge/accessories and bridge/health.
        await setup.accessory.kill()
        try await setup.waitFor("hap2mqtt/light/availability", "offline", timeout: .seconds(60))
        try await eventually("bridge/accessories says why the Light is offline", timeout: .seconds(60)) {
            let list = try await setup.observer.retained("hap2mqtt/bridge/accessories")
            let accessories =
                (list.flatMap { try? JSONSerialization.jsonObject(with: Data($0.payload)) }) as? [[String: Any]]
            let light = accessories?.first { $0["slug"] as? String == "light" }
            return ["unreachable", "connection_failed", "connection_lost"].contains(
                light?["offline_reason"] as? String ?? "")
        }
        let gone = try await setup.health()
        #expect(["unreachable", "connection_failed"].contains(gone["offline_reason"] as? String ?? ""), "\(gone)")
        await setup.stop()
    }
}
