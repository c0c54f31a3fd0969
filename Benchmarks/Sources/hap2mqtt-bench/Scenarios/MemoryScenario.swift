import Foundation
import HAP2MQTTTesting

/// The memory figure: the resident memory of a gateway process holding 10,000 characteristics
/// (in-memory provider). The gateway runs in a child process of its own (`MemoryProbe`), so that the
/// measuring clients and this process's earlier scenarios do not count; the child reports its `VmHWM`
/// (peak resident set) from `/proc/self/status`.
struct MemoryScenario: BenchmarkScenario {
    let name = "memory"
    let summary = "peak resident memory of a gateway process with 10,000 characteristics (in-memory provider)"

    func run(_ context: BenchmarkContext) async throws -> ScenarioResult {
        let started = Monotonic.now()
        let accessories = context.pick(full: 500, tiny: 25)
        let home = BenchmarkHome(accessories: accessories)
        let runs = context.runs ?? context.pick(full: 3, tiny: 1)
        var peaks: [Double] = []
        var starts: [Double] = []
        try await context.withBroker { broker in
            let subscriber = try await BareClient.connected("bench-subscriber", port: broker.port)
            defer { subscriber.stop() }
            for index in 1...runs {
                let base = context.uniqueBase(name)
                try await subscriber.subscribe("\(base)/#")
                let report = try await MemoryProbe.measure(
                    brokerURL: broker.url, base: base, home: home, subscriber: subscriber)
                subscriber.unsubscribe("\(base)/#")
                context.progress(
                    "run \(index)/\(runs): peak \(report.peakKB / 1024) MB, at start \(report.startKB / 1024) MB")
                peaks.append(Double(report.peakKB) / 1024)
                starts.append(Double(report.startKB) / 1024)
            }
        }
        return ScenarioResult(
            scenario: name,
            parameters:
                "\(home.characteristicCount) characteristics (\(accessories) accessories × \(BenchmarkHome.characteristicsPerAccessory)), runs: \(runs), a child process each",
            metrics: [
                Metric(
                    name: "peak resident memory", unit: "MB", gateway: peaks,
                    goals: [Goal(statistic: .max, comparison: .atMost, limit: 60)]),
                Metric(name: "resident before the home", unit: "MB", gateway: starts),
                Metric(name: "peak growth from the home", unit: "MB", gateway: zip(peaks, starts).map { $0 - $1 }),
            ],
            notes: [
                "peak resident memory: VmHWM of a child process running home store, MQTT client and gateway, after the home was published and every changing value (\(home.changeable.count)) changed once",
                "resident before the home: VmHWM of the same child before it built anything (runtime, Foundation, libmosquitto); the growth is the difference",
                "the child also holds the in-memory provider's own copy of the home, as a HAP provider holds its accessory data",
            ],
            seconds: Monotonic.micros(from: started, to: Monotonic.now()) / 1e6)
    }
}
