import Foundation
import Glibc
import HAP2MQTTTesting
import MQTT
import Testing

/// A hot standby (docs/DESIGN.md "Owning the base topic", `standby`): two real gateways on one base topic,
/// each with its own pairing on the real HAP-python bridge (the standby's added through `export
/// --aiohomekit` and `import --aiohomekit`), a real mosquitto.
@Suite("hap2mqtt run: a hot standby")
struct StandbyTests {
    /// Both gateways of the pair: a standby each, with a keep-alive short enough for a take-over within
    /// 10 s.
    static let environment = ["HAP2MQTT_STANDBY": "true", "HAP2MQTT_MQTT_KEEPALIVE": "5"]

    @Test(
        "the standby holds no HAP session while the primary lives, takes over within 10 s of its SIGKILL and answers commands; the returning primary stands by"
    )
    func takeOver() async throws {
        let broker = try await MosquittoBroker()
        let accessory = try await HAPPythonAccessory.start()
        let primary = try GatewayProcess(brokerURL: broker.url, environment: Self.environment)
        try await LiveGateway.pair(primary, with: accessory)
        let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/#"])
        try primary.start()
        let first = try await observer.waitFor(topic: "hap2mqtt/bridge/state", timeout: .seconds(60)) {
            $0.bridgeState == "online"
        }

        // The standby's own pairing, added by the accessory through the primary's exported keys.
        let standby = try GatewayProcess(brokerURL: broker.url, environment: Self.environment)
        let file = primary.directory.appendingPathComponent("pairing.json")
        let export = try await primary.runCommand(["export", "--aiohomekit", file.path])
        #expect(export.status == 0, "\(export.output)")
        let imported = try await standby.runCommand(["import", "--aiohomekit", file.path], timeout: .seconds(60))
        #expect(imported.status == 0 && imported.output.contains("own pairing"), "\(imported.output)")

        try standby.start()
        try await eventually("the standby to stand by", timeout: .seconds(60)) {
            standby.log.contains("standing by: the base topic hap2mqtt/ is held by client id \(primary.clientID)")
        }
        #expect(!standby.log.contains("started home store"), "no HAP session while the primary lives")
        #expect(standby.isRunning)

        await observer.clear()
        let killed = ContinuousClock.now
        await primary.kill()
        let taken = try await observer.waitFor(topic: "hap2mqtt/bridge/state", timeout: .seconds(30)) {
            $0.bridgeState == "online" && $0.bridgeInstance != first.bridgeInstance
        }
        let took = ContinuousClock.now - killed
        #expect(took < .seconds(10), "the standby was online \(took) after the primary's SIGKILL")
        #expect(standby.log.contains("took over the base topic hap2mqtt/ from another gateway"))
        // Exactly one publisher: after the primary's last will, every bridge/state is the standby's.
        let states = await observer.messages(on: "hap2mqtt/bridge/state")
        let afterWill = states.drop { $0.bridgeInstance == first.bridgeInstance }
        #expect(afterWill.allSatisfy { $0.bridgeInstance == taken.bridgeInstance }, "\(states.map(\.payloadString))")

        // A QoS 1 command, answered by the standby and carried out by the accessory.
        try await observer.publish("hap2mqtt/light/lightbulb/on/set", "true")
        let result = try await observer.waitFor(topic: "hap2mqtt/light/lightbulb/on/set/result", timeout: .seconds(30))
        #expect(result.payloadString == #"{"status":"ok","value":true}"#)
        #expect(try await accessory.value(accessory: "Light", characteristic: "On") == .bool(true))

        // The primary comes back: it stands by, publishing nothing.
        try primary.start()
        try await eventually("the returning primary to stand by", timeout: .seconds(60)) {
            primary.log.components(
                separatedBy: "standing by: the base topic hap2mqtt/ is held by client id \(standby.clientID)"
            )
            .count > 1
        }
        try await observer.publish("hap2mqtt/test-marker", "end")
        _ = try await observer.waitFor(topic: "hap2mqtt/test-marker")
        #expect(
            await observer.messages(on: "hap2mqtt/bridge/state").allSatisfy {
                $0.bridgeInstance != first.bridgeInstance || $0.bridgeClaim == "released"
            })
        #expect(try await observer.retained("hap2mqtt/bridge/state")?.payloadString == taken.payloadString)

        // The standby stops: the primary takes the base topic back.
        await standby.stop()
        #expect(standby.terminationStatus == 0)
        _ = try await observer.waitFor(topic: "hap2mqtt/bridge/state", timeout: .seconds(60)) {
            $0.bridgeState == "online" && $0.bridgeInstance == first.bridgeInstance
        }

        // The primary freezes (as a host that vanishes without closing its connection): the standby,
        // started again, takes over once the broker gives up on the primary; the primary, resumed, stops.
        try standby.start()
        try await eventually("the standby to stand by again", timeout: .seconds(60)) {
            standby.log.components(separatedBy: "standing by: the base topic").count > 1
        }
        await observer.clear()
        let pid = try #require(primary.processIdentifier)
        let frozen = ContinuousClock.now
        #expect(kill(pid, SIGSTOP) == 0)
        let again = try await observer.waitFor(topic: "hap2mqtt/bridge/state", timeout: .seconds(30)) {
            $0.bridgeState == "online" && $0.bridgeInstance == taken.bridgeInstance
        }
        // The broker gives up on a silent client 1.5 keep-alives (7.5 s) after its last packet; the standby
        // is online about 1 to 3 s later, depending on the machine's load.
        let tookAgain = ContinuousClock.now - frozen
        #expect(tookAgain < .seconds(15), "the standby was online \(tookAgain) after the primary froze")
        try await observer.publish("hap2mqtt/light/lightbulb/on/set", "false")
        let answer = try await observer.waitFor(topic: "hap2mqtt/light/lightbulb/on/set/result", timeout: .seconds(30))
        #expect(answer.payloadString == #"{"status":"ok","value":false}"#)
        #expect(kill(pid, SIGCONT) == 0)
        // A known defect, intermittent: the resumed primary's claim check after its reconnect sometimes finds
        // no held claim, and it publishes over the standby that took over (docs/topics.md "A hot standby").
        await withKnownIssue("a resumed primary sometimes keeps running beside the standby", isIntermittent: true) {
            try await eventually("the resumed primary to stop", timeout: .seconds(60)) { !primary.isRunning }
            #expect(primary.terminationStatus == 1, "\(primary.log.suffix(2000))")
            #expect(try await observer.retained("hap2mqtt/bridge/state")?.payloadString == again.payloadString)
            let frozenStates = await observer.messages(on: "hap2mqtt/bridge/state")
            #expect(
                frozenStates.allSatisfy { $0.bridgeInstance == taken.bridgeInstance || $0.bridgeClaim == "released" },
                "\(frozenStates.map { $0.payloadString ?? "" })")
        }
        if primary.isRunning { await primary.kill() }
        await standby.stop()
        await observer.disconnect()
        await accessory.stop()
        await broker.stop()
    }

    @Test("a standby without a pairing of its own: one line saying how to add one, exit status 1, nothing published")
    func standbyWithoutPairing() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/#", "homeassistant/#"])
        let standby = try GatewayProcess(brokerURL: broker.url, environment: Self.environment)
        let run = try await standby.runCommand(["run"], timeout: .seconds(60))
        #expect(run.status == 1, "\(run.output)")
        #expect(run.output.contains("a standby needs its own pairing"), "\(run.output)")
        try await observer.publish("hap2mqtt/test-marker", "end")
        _ = try await observer.waitFor(topic: "hap2mqtt/test-marker")
        #expect(await observer.allMessages.map(\.topic) == ["hap2mqtt/test-marker"])
        await observer.disconnect()
        await broker.stop()
    }
}
