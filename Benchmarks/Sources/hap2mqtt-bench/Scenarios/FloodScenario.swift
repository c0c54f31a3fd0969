import Foundation
import HAP2MQTTTesting
import MQTT

/// The flood of docs/security.md "The limits, and how to set them": the real `hap2mqtt run` binary with a
/// paired HAP-python bridge takes
/// an accessory flooding events (`FloodScenario+Events.swift`), then a burst of 1 MB commands and many
/// small bad ones (the payloads of the fuzz test), as fast as the broker forwards them. Reported: the
/// process's resident memory when ready, its peak through the event flood and through the whole run
/// (`VmHWM`), the `/set` round trips during the event flood, and what it holds once it is all over and it
/// had time to settle (`VmRSS`).
struct FloodScenario: BenchmarkScenario {
    let name = "flood"
    let summary =
        "hap2mqtt run taking an event flood, 1 MB commands and a burst of small bad ones: peak and settled resident memory"

    /// The small payloads, sent round-robin to the command topics.
    static let smallPayloads: [[UInt8]] = [
        [], [0xC3, 0x28, 0xFF], Array("1e400".utf8), Array("1e-400".utf8), Array("NaN".utf8), [0x31, 0x00],
        Array(#"{"a":1,"a":2}"#.utf8), Array("true".utf8), Array("-5".utf8),
        Array(String(repeating: "[", count: 2000).utf8),
    ]

    func run(_ context: BenchmarkContext) async throws -> ScenarioResult {
        let started = Monotonic.now()
        let large = context.pick(full: 3_000, tiny: 50)
        let small = context.pick(full: 120_000, tiny: 2_000)
        let settle = context.pick(full: Duration.seconds(60), tiny: .seconds(10))
        let eventSeconds = context.pick(full: Duration.seconds(30), tiny: .seconds(5))
        let lights = 5
        let binary = try ScaleScenario.gatewayBinary()
        context.progress("Python venv for HAP-python")
        let python = try await BenchPython.ensure()
        var figures: (start: Double, peak: Double, settled: Double, shed: String) = (0, 0, 0, "")
        var events = EventFlood(events: 0, roundTrips: [], peakMB: 0)
        try await context.withBroker { broker in
            context.progress("starting a HAP-python bridge of \(lights) lights and pairing with it")
            let fleet = try await BridgeFleet.start(count: 1, lights: lights, python: python)
            let base = context.uniqueBase(name)
            let gateway = try GatewayProcess(brokerURL: broker.url, baseTopic: base, logLevel: "info")
            defer { try? FileManager.default.removeItem(at: gateway.directory) }
            do {
                try fleet.copyPairings(to: gateway.stateDirectory)
                let watcher = try await MQTTTestClient.connect(
                    to: broker, subscribe: ["\(base)/bridge/state", "\(base)/bridge/health"])
                try gateway.start()
                _ = try await watcher.waitFor(topic: "\(base)/bridge/state", timeout: .seconds(120)) {
                    $0.bridgeState == "online"
                }
                try await Task.sleep(for: .seconds(1))
                guard let pid = gateway.processIdentifier, let start = ResidentMemory.current(pid: pid) else {
                    throw BenchmarkError.process("hap2mqtt run exited\n\(gateway.log.suffix(2_000))")
                }
                context.progress("an event flood of \(eventSeconds) from the bridge, a /set every second meanwhile")
                events = try await eventFlood(
                    bridge: fleet.bridges[0], broker: broker, base: base, pid: pid, duration: eventSeconds)
                context.progress(
                    "\(events.events) events, peak \(Table.number(events.peakMB)) MB, /set round trips up to \(Table.number(events.roundTrips.max() ?? 0)) ms"
                )
                let topics =
                    (1...lights).flatMap { n in
                        ["on", "brightness", "hue", "saturation"].map { "\(base)/light_\(n)/lightbulb/\($0)/set" }
                    } + ["\(base)/light_1/set", "\(base)/bridge/request/rename"]
                let publisher = try await MQTTTestClient.connect(to: broker, subscribe: [])
                context.progress("\(large) commands of 1 MB")
                let megabyte = Array(repeating: UInt8(ascii: "5"), count: 1_000_000)
                for index in 0..<large {
                    try await publisher.publish(
                        MQTTMessage(topic: topics[index % topics.count], payload: megabyte, qos: .atLeastOnce))
                }
                context.progress("\(small) small bad commands")
                for index in 0..<small {
                    let payload = Self.smallPayloads[index % Self.smallPayloads.count]
                    try await publisher.publish(
                        MQTTMessage(topic: topics[(index / 7) % topics.count], payload: payload, qos: .atLeastOnce))
                }
                context.progress("settling for \(settle)")
                try await Task.sleep(for: settle)
                guard let end = ResidentMemory.current(pid: pid) else {
                    throw BenchmarkError.process("hap2mqtt run exited during the flood\n\(gateway.log.suffix(2_000))")
                }
                // bridge/health comes at start and every 10 minutes: asked for now, it has the run's counts.
                await watcher.clear()
                try await publisher.publish(
                    MQTTMessage(topic: "\(base)/bridge/request/health_check", string: "{}", qos: .atLeastOnce))
                await publisher.disconnect()
                let health = try? await watcher.waitFor(topic: "\(base)/bridge/health", timeout: .seconds(30))
                figures = (
                    Double(start.nowKB) / 1024, Double(end.peakKB) / 1024, Double(end.nowKB) / 1024,
                    health?.payloadString ?? "none within 30 s of a health_check request"
                )
                await watcher.disconnect()
                await gateway.stop()
                await fleet.stop()
            } catch {
                await gateway.stop()
                await fleet.stop()
                throw error
            }
        }
        context.progress(
            "start \(Table.number(figures.start)) MB, peak \(Table.number(figures.peak)) MB, settled \(Table.number(figures.settled)) MB"
        )
        return ScenarioResult(
            scenario: name,
            parameters:
                "\(eventSeconds.components.seconds) s of events as fast as the accessory sends them, \(large) × 1 MB and \(small) small bad commands, a HAP-python bridge of \(lights) lights, the \(binary.deletingLastPathComponent().lastPathComponent) binary",
            metrics: [
                Metric(name: "resident when ready", unit: "MB", gateway: [figures.start]),
                Metric(
                    name: "peak resident through the event flood", unit: "MB", gateway: [events.peakMB],
                    goals: [Goal(statistic: .max, comparison: .atMost, limit: 80)]),
                Metric(name: "/set round trip during the event flood", unit: "ms", gateway: events.roundTrips),
                Metric(
                    name: "peak resident through the whole run", unit: "MB", gateway: [figures.peak],
                    goals: [Goal(statistic: .max, comparison: .atMost, limit: 80)]),
                Metric(
                    name: "resident \(settle.components.seconds) s after the flood", unit: "MB",
                    gateway: [figures.settled],
                    goals: [Goal(statistic: .max, comparison: .atMost, limit: figures.start + 10)]),
            ],
            notes: [
                "peak: VmHWM of the hap2mqtt process; ready and settled: its VmRSS (/proc/<pid>/status)",
                "event flood: \(events.events) changes of one light's brightness by the HAP-python fixture, as fast as its event loop allows; the /sets go to another light of the same bridge",
                "the commands are published one after the other at QoS 1, each acknowledged by the broker; the gateway refuses them all (too large, or not a value)",
                "bridge/health after the run (asked for with health_check): \(figures.shed)",
            ],
            seconds: Monotonic.micros(from: started, to: Monotonic.now()) / 1e6)
    }
}
