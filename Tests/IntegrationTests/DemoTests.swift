import Foundation
import HAP2MQTTTesting
import MQTT
import Testing

/// The README's demo command, `scripts/demo`, run as a user runs it: the real script starting a real
/// mosquitto, the demo HAP-python bridge and the real binary, all on loopback.
@Suite("scripts/demo: the README's demo command")
struct DemoTests {
    static let light = "hap2mqtt/desk_lamp/lightbulb/on"

    @Test(
        "it pairs, the gateway publishes the light, the printed mosquitto_pub switches it, and SIGINT stops all it started"
    )
    func demoRun() async throws {
        let demo = try DemoScript()
        try demo.start()
        try await demo.waitForOutput("mosquitto_pub ")
        #expect(demo.output.contains("==> pairing with the demo bridge"))
        #expect(try demo.printedCommand("mosquitto_sub") == ["-p", "\(demo.mqttPort)", "-v", "-t", "hap2mqtt/#"])
        #expect(
            try demo.printedCommand("mosquitto_pub") == [
                "-p", "\(demo.mqttPort)", "-t", "\(Self.light)/set", "-m", "true",
            ])
        let observer = try await MQTTTestClient.connect(
            to: "mqtt://127.0.0.1:\(demo.mqttPort)", subscribe: ["hap2mqtt/#"])
        _ = try await observer.waitFor(topic: "hap2mqtt/bridge/state") { $0.bridgeState == "online" }

        _ = try await observer.waitFor(topic: Self.light, timeout: .seconds(30))
        #expect(try await observer.retained(Self.light)?.payloadString == "false", "the light's state, retained")
        let seen = try await demo.runPrinted("mosquitto_sub", ["-W", "3"])
        #expect(seen.contains("\(Self.light) false"), "what mosquitto_sub shows the user:\n\(seen)")
        #expect(seen.contains(#"hap2mqtt/bridge/state {"state":"online","#))

        _ = try await demo.runPrinted("mosquitto_pub")
        try await demo.waitForOutput("Desk Lamp: on → true", timeout: .seconds(10))
        let state = try await observer.waitFor(topic: Self.light) { $0.payloadString == "true" }
        #expect(state.payloadString == "true")
        let result = try await observer.waitFor(topic: "\(Self.light)/set/result")
        #expect(result.payloadString?.contains(#""status":"ok""#) == true, "\(result.payloadString ?? "")")

        try await expectInterruptStopsEverything(demo, observer: observer)
        await observer.disconnect()
    }

    @Test("a second run finds the pairing and does not pair again; the light is published again")
    func secondRun() async throws {
        let demo = try DemoScript()
        try demo.start()
        try await demo.waitForOutput("mosquitto_pub ")
        let first = try await MQTTTestClient.connect(to: "mqtt://127.0.0.1:\(demo.mqttPort)", subscribe: ["hap2mqtt/#"])
        _ = try await first.waitFor(topic: Self.light, timeout: .seconds(30))
        #expect(try await first.retained(Self.light)?.payloadString == "false", "the light's state, retained")
        try await expectInterruptStopsEverything(demo, observer: first)
        await first.disconnect()

        try demo.start()
        try await demo.waitForOutput("mosquitto_pub ")
        #expect(demo.output.contains("==> already paired with the demo bridge"))
        #expect(!demo.output.contains("==> pairing"))
        let second = try await MQTTTestClient.connect(
            to: "mqtt://127.0.0.1:\(demo.mqttPort)", subscribe: ["hap2mqtt/#"])
        _ = try await second.waitFor(topic: Self.light, timeout: .seconds(30))
        #expect(try await second.retained(Self.light)?.payloadString == "false", "the light's state, retained")
        try await expectInterruptStopsEverything(demo, observer: second)
        await second.disconnect()
    }

    /// SIGINT to the script: it ends with status 0, the gateway stopped cleanly first (`bridge/state`
    /// offline reached the observer before the broker went), and the gateway, the bridge and the broker
    /// are all gone, their ports closed.
    private func expectInterruptStopsEverything(_ demo: DemoScript, observer: MQTTTestClient) async throws {
        let pids = demo.pids
        #expect(Set(pids.keys) == ["hap2mqtt", "bridge", "mosquitto"], "pid files: \(pids)")
        #expect(pids.values.allSatisfy(DemoScript.isRunning), "\(pids)")
        // `online` ends the gateway's first batch: after it, nothing of that batch is still on its way.
        _ = try await observer.waitFor(topic: "hap2mqtt/bridge/state") { $0.bridgeState == "online" }
        await observer.clear()
        let status = await demo.interrupt()
        #expect(status == 0, "scripts/demo printed:\n\(demo.output)")
        let goodbye = await observer.firstMessage(on: "hap2mqtt/bridge/state", within: .seconds(5))
        #expect(goodbye?.bridgeState == "offline")
        #expect(demo.output.contains("hap2mqtt: stopped"))
        for (name, pid) in pids {
            #expect(!DemoScript.isRunning(pid), "\(name) (pid \(pid)) still runs after the demo ended")
        }
        #expect(!LoopbackSocket.acceptsConnections(port: demo.mqttPort), "the broker still listens")
        #expect(!LoopbackSocket.acceptsConnections(port: demo.hapPort), "the bridge still listens")
    }
}
