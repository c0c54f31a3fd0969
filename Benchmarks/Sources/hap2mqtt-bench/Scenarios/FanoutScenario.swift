import HomeStore
import MQTT

/// Scenario 1: a burst of value changes from the in-memory provider, as fast as it can produce them, until
/// a separate subscriber has every state message; against a bare client publishing exactly the messages
/// the gateway sent (same topics, payloads, count, QoS, retain flag) as fast as it can.
struct FanoutScenario: BenchmarkScenario {
    let name = "fanout"
    let summary =
        "a burst of value changes (100 accessories × 20 characteristics, 50,000 changes): gateway throughput against a bare publisher"

    private struct Run {
        var gatewayRate: Double
        var baselineRate: Double
        var gatewayCPU: Double
        var baselineCPU: Double
        var characteristicMessages: Int
        var accessoryMessages: Int
    }

    func run(_ context: BenchmarkContext) async throws -> ScenarioResult {
        let started = Monotonic.now()
        let home = BenchmarkHome(accessories: context.pick(full: 100, tiny: 10))
        let changes = context.pick(full: 50_000, tiny: 2_000)
        let runs = context.runs ?? context.pick(full: 5, tiny: 1)
        var metrics: [Metric] = []
        var notes: [String] = []
        try await context.withBroker { broker in
            let subscriber = try await BareClient.connected("bench-subscriber", port: broker.port)
            let publisher = try await BareClient.connected("bench-publisher", port: broker.port)
            defer {
                subscriber.stop()
                publisher.stop()
            }
            for qos in [MQTTQoS.atMostOnce, .atLeastOnce] {
                var results: [Run] = []
                for index in 1...runs {
                    let run = try await measure(
                        home: home, changes: changes, qos: qos, broker: broker.url, context: context,
                        subscriber: subscriber, publisher: publisher)
                    context.progress(
                        "QoS \(qos.rawValue) run \(index)/\(runs): gateway \(Table.number(run.gatewayRate)) msg/s, baseline \(Table.number(run.baselineRate)) msg/s"
                    )
                    results.append(run)
                }
                metrics.append(
                    Metric(
                        name: "throughput QoS \(qos.rawValue)", unit: "msg/s", gateway: results.map(\.gatewayRate),
                        baseline: results.map(\.baselineRate), goals: [.ratio(.median, atLeast: 0.8)]))
                metrics.append(
                    Metric(
                        name: "CPU per message QoS \(qos.rawValue)", unit: "µs", gateway: results.map(\.gatewayCPU),
                        baseline: results.map(\.baselineCPU)))
                let json = results.map(\.accessoryMessages).sorted()
                notes.append(
                    "QoS \(qos.rawValue): \(results.first?.characteristicMessages ?? 0) characteristic messages and \(json.first ?? 0)–\(json.last ?? 0) accessory JSON messages per run"
                )
            }
        }
        notes.append(
            "throughput: messages received by the subscriber per second, from the first change (gateway) or first publish (baseline) to the last message; ratio ≥ 1 is better"
        )
        notes.append(
            "CPU per message: this process's CPU time (gateway or bare publisher, plus the measuring subscriber) over the messages"
        )
        return ScenarioResult(
            scenario: name,
            parameters:
                "\(home.accessories.count) accessories × \(BenchmarkHome.characteristicsPerAccessory) characteristics, \(changes) changes, runs per QoS: \(runs)",
            metrics: metrics, notes: notes, seconds: Monotonic.micros(from: started, to: Monotonic.now()) / 1e6)
    }

    private func measure(
        home: BenchmarkHome, changes: Int, qos: MQTTQoS, broker: String, context: BenchmarkContext,
        subscriber: BareClient,
        publisher: BareClient
    ) async throws -> Run {
        let base = context.uniqueBase(name)
        try await subscriber.subscribe("\(base)/#")
        defer { subscriber.unsubscribe("\(base)/#") }
        return try await GatewayRig.with(brokerURL: broker, base: base, accessories: home.accessories, stateQoS: qos) {
            rig in
            try await rig.publishHome(to: subscriber)
            let events = (0..<changes).map { ProviderEvent.values([home.change($0)]) }
            let timeout = Duration.seconds(Double(changes) / 500 + 10)

            var start: UInt64 = 0
            var cpu = ProcessCPU.micros()
            guard
                let gateway = await subscriber.expect(
                    StateBurstExpectation(base: base, count: changes), timeout: timeout,
                    start: {
                        start = Monotonic.now()
                        for event in events { rig.provider.send(event) }
                    })
            else {
                throw BenchmarkError.timedOut(
                    "the gateway's burst did not arrive within \(timeout) (\(subscriber.timedOutProgress))")
            }
            let gatewayCPU = ProcessCPU.micros() - cpu
            let gatewaySeconds = Monotonic.micros(from: start, to: gateway.last) / 1e6
            // Let the gateway finish what follows the burst (acknowledgements) before the baseline runs.
            try await Task.sleep(for: .milliseconds(300))

            let messages = gateway.recorded
            cpu = ProcessCPU.micros()
            guard
                let baseline = await subscriber.expect(
                    StateBurstExpectation(base: base, count: changes), timeout: timeout,
                    start: {
                        start = Monotonic.now()
                        for message in messages {
                            publisher.publish(message.topic, message.payload, qos: Int32(qos.rawValue), retain: true)
                        }
                    })
            else {
                throw BenchmarkError.timedOut(
                    "the baseline's burst did not arrive within \(timeout) (\(subscriber.timedOutProgress))")
            }
            let baselineCPU = ProcessCPU.micros() - cpu
            let baselineSeconds = Monotonic.micros(from: start, to: baseline.last) / 1e6
            let count = Double(messages.count)
            return Run(
                gatewayRate: count / gatewaySeconds, baselineRate: Double(baseline.recorded.count) / baselineSeconds,
                gatewayCPU: gatewayCPU / count, baselineCPU: baselineCPU / Double(baseline.recorded.count),
                characteristicMessages: gateway.characteristicMessages, accessoryMessages: gateway.accessoryMessages)
        }
    }
}
