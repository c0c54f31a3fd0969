import Foundation
import HAP2MQTTTesting
import Testing

/// `hap2mqtt unpair` and `hap2mqtt pair` while `hap2mqtt run` runs: the running gateway follows the state
/// directory without a restart.
@Suite("hap2mqtt run with a real accessory: pairings changed while it runs")
struct LivePairingChangeTests {
    @Test("unpair while running clears every topic of its accessories; pairing again brings them back, same topics")
    func unpairAndPairAgain() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        let before = try await live.retainedSnapshot()
        let pairingID = try await live.accessory.status().pairingID
        let availability = before.keys.filter { $0.hasSuffix("/availability") }.sorted()
        #expect(availability.count == LiveRecoveryTests.slugs.count)

        let unpair = try await live.gateway.runCommand(["unpair", pairingID])
        #expect(unpair.status == 0, "\(unpair.output)")
        try await eventually("every accessory topic cleared", timeout: .seconds(30)) {
            let now = (try? await live.retainedSnapshot()) ?? [:]
            return now.keys.allSatisfy { $0.hasPrefix("hap2mqtt/bridge/") }
                && now["hap2mqtt/bridge/accessories"] == "[]"
        }
        #expect(live.gateway.isRunning)
        #expect(live.gateway.log.contains("was removed; its accessories and their topics go too"))
        #expect(
            !live.gateway.log.contains("no longer accepts this controller"), "an unpair is not reported as an error")

        await live.observer.clear()
        let pair = try await live.gateway.runCommand([
            "pair", "--host", "127.0.0.1", "--port", String(live.accessory.port), "--code", live.accessory.setupCode,
        ])
        #expect(pair.status == 0, "\(pair.output)")
        for topic in availability { try await live.waitFor(topic, "online", timeout: .seconds(15)) }
        do {
            try await eventually("the same retained topics as before", timeout: .seconds(30)) {
                let now = (try? await live.retainedSnapshot()) ?? [:]
                return Set(now.keys) == Set(before.keys)
            }
        } catch {
            let now = try await live.retainedSnapshot()
            Issue.record(
                "missing: \(Set(before.keys).subtracting(now.keys).sorted()); new: \(Set(now.keys).subtracting(before.keys).sorted())\n\(live.gateway.log.suffix(3000))"
            )
        }
        await live.stop()
    }

    @Test("after an accessory reset: offline and no retries; paired again while running, it comes back online")
    func resetAndPairAgain() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        try await live.accessory.resetPairings()
        for slug in LiveRecoveryTests.slugs { try await live.waitFor("hap2mqtt/\(slug)/availability", "offline") }
        try await eventually("the refusal in the log", timeout: .seconds(10)) {
            live.gateway.log.contains("no longer accepts this controller")
        }
        #expect(
            live.gateway.log.contains("--port \(live.accessory.port) --config \(live.gateway.configurationFile.path) "),
            "the suggested command uses the gateway's own configuration")

        await live.observer.clear()
        // As the log says: the same pair command again; the new pairing replaces the old one.
        let pair = try await live.gateway.runCommand([
            "pair", "--host", "127.0.0.1", "--port", String(live.accessory.port), "--code", live.accessory.setupCode,
        ])
        #expect(pair.status == 0, "\(pair.output)")
        #expect(pair.output.contains("again"), "\(pair.output)")
        for slug in LiveRecoveryTests.slugs {
            try await live.waitFor("hap2mqtt/\(slug)/availability", "online", timeout: .seconds(30))
        }
        try await live.publish("hap2mqtt/light/lightbulb/on/set", "true")
        let result = try await live.next(on: "hap2mqtt/light/lightbulb/on/set/result")
        #expect(result.payloadString == #"{"status":"ok","value":true}"#)
        await live.stop()
    }

    @Test(
        "started with a damaged pairing file: its accessories show offline with the reason; repaired, they come online")
    func damagedAtStart() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        await live.gateway.stop()
        let pairingID = try await live.accessory.status().pairingID
        let file = live.gateway.stateDirectory.appendingPathComponent(
            "pairing-\(pairingID.replacingOccurrences(of: ":", with: "-")).json")
        let good = try Data(contentsOf: file)
        try (good + Data("garbage{".utf8)).write(to: file)

        await live.observer.clear()
        try live.gateway.start()
        try await live.waitUntilOnline()
        for slug in LiveRecoveryTests.slugs { try await live.waitFor("hap2mqtt/\(slug)/availability", "offline") }
        #expect(live.gateway.log.contains("is damaged"))
        try await live.publish("hap2mqtt/light/lightbulb/on/set", "true")
        let refused = try await live.next(on: "hap2mqtt/light/lightbulb/on/set/result")
        #expect(
            refused.payloadString?.contains("pairing file cannot be read") == true, "\(refused.payloadString ?? "")")

        await live.observer.clear()
        try good.write(to: file)
        for slug in LiveRecoveryTests.slugs {
            try await live.waitFor("hap2mqtt/\(slug)/availability", "online", timeout: .seconds(30))
        }
        try await live.publish("hap2mqtt/light/lightbulb/on/set", "true")
        let ok = try await live.next(on: "hap2mqtt/light/lightbulb/on/set/result")
        #expect(ok.payloadString == #"{"status":"ok","value":true}"#)
        await live.stop()
    }
}
