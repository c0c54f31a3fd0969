import Foundation
import HAP2MQTTTesting

/// Scenario 5: the real `hap2mqtt run` binary with HAP-python bridges of 149 accessories × 10
/// characteristics, one bridge and ten: the time from starting the process to all retained state published
/// (`StartupExpectation`), and the process's peak resident memory (`VmHWM`, read from `/proc/<pid>/status`
/// just before it is stopped). The bridges are started and paired before the timer.
struct ScaleScenario: BenchmarkScenario {
    let name = "scale"
    let summary =
        "hap2mqtt run with HAP-python bridges of 149 accessories × 10 characteristics (1 and 10 bridges): time to all retained state, peak memory"

    /// Characteristics of a light (AccessoryInformation's 6, Lightbulb's 4) and of the bridge itself
    /// (AccessoryInformation, HAPProtocolInformation's Version), and how many of them are readable
    /// (Identify is write-only).
    static let perLight = (all: 10, readable: 9)
    static let onBridge = (all: 7, readable: 6)

    /// The goals by number of bridges: seconds to ready, peak resident MB.
    static let goals: [Int: (seconds: Double, megabytes: Double)] = [1: (3, 40), 10: (10, 80)]

    func run(_ context: BenchmarkContext) async throws -> ScenarioResult {
        let started = Monotonic.now()
        let lights = context.pick(full: 149, tiny: 5)
        let setups = context.pick(full: [1, 10], tiny: [1])
        let runs = context.runs ?? context.pick(full: 3, tiny: 1)
        let binary = try Self.gatewayBinary()
        context.progress("Python venv for HAP-python")
        let python = try await BenchPython.ensure()
        var metrics: [Metric] = []
        var notes: [String] = []
        try await context.withBroker { broker in
            let subscriber = try await BareClient.connected("bench-subscriber", port: broker.port)
            defer { subscriber.stop() }
            for bridges in setups {
                context.progress(
                    "starting \(bridges) HAP-python bridge\(bridges == 1 ? "" : "s") of \(lights) lights and pairing with them"
                )
                let fleet = try await BridgeFleet.start(count: bridges, lights: lights, python: python)
                var ready: [Double] = []
                var peaks: [Double] = []
                var counts = (characteristics: 0, messages: 0)
                do {
                    for index in 1...runs {
                        let run = try await measure(
                            fleet: fleet, lights: lights, broker: broker, subscriber: subscriber, context: context)
                        context.progress(
                            "\(bridges) bridge(s), run \(index)/\(runs): ready after \(Table.number(run.seconds)) s, peak \(Table.number(run.peakMB)) MB"
                        )
                        ready.append(run.seconds)
                        peaks.append(run.peakMB)
                        counts = (run.characteristics, run.messages)
                    }
                    await fleet.stop()
                } catch {
                    await fleet.stop()
                    throw error
                }
                let total = bridges * (lights * Self.perLight.all + Self.onBridge.all)
                let goal = Self.goals[bridges]
                let label = "\(bridges) bridge\(bridges == 1 ? "" : "s"), \(total) characteristics"
                metrics.append(
                    Metric(
                        name: "ready, \(label)", unit: "s", gateway: ready,
                        goals: goal.map { [Goal(statistic: .median, comparison: .atMost, limit: $0.seconds)] } ?? []))
                metrics.append(
                    Metric(
                        name: "peak resident, \(label)", unit: "MB", gateway: peaks,
                        goals: goal.map { [Goal(statistic: .max, comparison: .atMost, limit: $0.megabytes)] } ?? []))
                notes.append(
                    "\(label): \(counts.characteristics) readable characteristics with state topics, \(counts.messages) messages under the base topic until ready"
                )
            }
        }
        notes += [
            "ready: from starting the process to the last of: bridge/state online, bridge/accessories, and for every accessory it lists its availability online and its JSON, for every readable characteristic its state topic",
            "peak resident: VmHWM of the hap2mqtt process (/proc/<pid>/status), read 1 s after it was ready, just before it is stopped",
            "the bridges run and are paired before the timer starts; each run is a fresh process with a copy of the same pairings, on a base topic of its own",
        ]
        return ScenarioResult(
            scenario: name,
            parameters:
                "HAP-python bridges of \(lights) lights × \(Self.perLight.all) characteristics (+\(Self.onBridge.all) of the bridge), runs: \(runs), the \(binary.deletingLastPathComponent().lastPathComponent) binary",
            metrics: metrics, notes: notes, seconds: Monotonic.micros(from: started, to: Monotonic.now()) / 1e6)
    }

    private struct Run {
        var seconds: Double
        var peakMB: Double
        var characteristics: Int
        var messages: Int
    }

    /// One start of `hap2mqtt run` with the fleet's pairings, until ready; then its peak memory, and stop.
    private func measure(
        fleet: BridgeFleet, lights: Int, broker: MosquittoBroker, subscriber: BareClient, context: BenchmarkContext
    ) async throws -> Run {
        let base = context.uniqueBase(name)
        let bridges = fleet.bridges.count
        try await subscriber.subscribe("\(base)/#")
        defer { subscriber.unsubscribe("\(base)/#") }
        let gateway = try GatewayProcess(brokerURL: broker.url, baseTopic: base, logLevel: "info")
        defer { try? FileManager.default.removeItem(at: gateway.directory) }
        try fleet.copyPairings(to: gateway.stateDirectory)
        let expectation = StartupExpectation(
            base: base, accessories: bridges * (lights + 1),
            characteristics: bridges * (lights * Self.perLight.readable + Self.onBridge.readable))
        var start: UInt64 = 0
        var startError: (any Error)?
        let seen = await subscriber.expect(expectation, timeout: .seconds(120)) {
            start = Monotonic.now()
            do { try gateway.start() } catch { startError = error }
        }
        do {
            if let startError {
                throw BenchmarkError.process("cannot start \(try GatewayProcess.binary().path): \(startError)")
            }
            guard let seen else {
                throw BenchmarkError.timedOut(
                    "hap2mqtt run was not ready within 120 s (\(subscriber.timedOutProgress))\n\(gateway.log.suffix(2_000))"
                )
            }
            let (ready, readable) = try seen.readyTime()
            try await Task.sleep(for: .seconds(1))
            guard let pid = gateway.processIdentifier, let peak = ResidentMemory.current(pid: pid)?.peakKB else {
                throw BenchmarkError.process(
                    "hap2mqtt run exited, or /proc has no VmHWM for it\n\(gateway.log.suffix(2_000))")
            }
            await gateway.stop()
            return Run(
                seconds: Monotonic.micros(from: start, to: ready) / 1e6, peakMB: Double(peak) / 1024,
                characteristics: readable, messages: seen.messages)
        } catch {
            await gateway.stop()
            throw error
        }
    }

    /// The `hap2mqtt` binary beside this benchmark's (the same build configuration).
    /// - Throws: `BenchmarkError.process` saying how to build it.
    static func gatewayBinary() throws -> URL {
        do {
            return try GatewayProcess.binary()
        } catch {
            throw BenchmarkError.process(
                "scale runs the hap2mqtt binary built beside hap2mqtt-bench: swift build -c release --product hap2mqtt (or scripts/bench, which builds both)"
            )
        }
    }
}
