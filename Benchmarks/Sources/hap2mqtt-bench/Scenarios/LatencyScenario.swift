import HomeStore
import MQTT

/// Scenario 2: one value change at a time, from the provider emitting it to the subscriber receiving its
/// state message; against a bare client publishing the same message to the same subscriber. Gateway and
/// baseline samples alternate, so both see the same machine.
struct LatencyScenario: BenchmarkScenario {
    let name = "latency"
    let summary = "one value change at a time (1,000 samples): provider → subscriber, against a bare publish → receive"

    /// Pause after each sample, so that every sample starts from an idle process as a lone event would.
    static let gap = Duration.milliseconds(2)

    func run(_ context: BenchmarkContext) async throws -> ScenarioResult {
        let started = Monotonic.now()
        let home = BenchmarkHome(accessories: context.pick(full: 100, tiny: 10))
        let samples = (context.runs ?? 1) * context.pick(full: 1_000, tiny: 50)
        let (gateway, baseline) = try await context.withBroker { broker in
            let subscriber = try await BareClient.connected("bench-subscriber", port: broker.port)
            let publisher = try await BareClient.connected("bench-publisher", port: broker.port)
            defer {
                subscriber.stop()
                publisher.stop()
            }
            let base = context.uniqueBase(name)
            try await subscriber.subscribe("\(base)/#")
            return try await GatewayRig.with(brokerURL: broker.url, base: base, accessories: home.accessories) { rig in
                try await rig.publishHome(to: subscriber)
                return try await context.pairedSamples(samples) { index in
                    try await sample(
                        index, home: home, base: base, rig: rig, subscriber: subscriber, publisher: publisher)
                }
            }
        }
        return ScenarioResult(
            scenario: name,
            parameters:
                "\(samples) samples at QoS 1 (the default state QoS), \(home.accessories.count) accessories × \(BenchmarkHome.characteristicsPerAccessory) characteristics",
            metrics: [
                Metric(
                    name: "delivery latency", unit: "µs", gateway: gateway, baseline: baseline)
            ],
            notes: [
                "gateway: from the provider reporting the change to the subscriber's callback for its state message",
                "baseline: from a bare client's mosquitto_publish of that same message to the subscriber's callback",
            ],
            seconds: Monotonic.micros(from: started, to: Monotonic.now()) / 1e6)
    }

    /// One gateway sample and one baseline sample, in µs.
    private func sample(
        _ index: Int, home: BenchmarkHome, base: String, rig: GatewayRig, subscriber: BareClient, publisher: BareClient
    ) async throws -> (Double, Double) {
        let event = ProviderEvent.values([home.change(index)])
        var start: UInt64 = 0
        // The change's characteristic message, then its accessory's JSON, which follows it: waiting for
        // both keeps one sample's messages out of the next.
        guard
            let gateway = await subscriber.expect(
                StateBurstExpectation(base: base, count: 1), timeout: .seconds(10),
                start: {
                    start = Monotonic.now()
                    rig.provider.send(event)
                }), let arrival = gateway.first
        else {
            throw BenchmarkError.timedOut("change \(index) did not reach the subscriber within 10 s")
        }
        let gatewayMicros = Monotonic.micros(from: start, to: arrival)
        try await Task.sleep(for: LatencyScenario.gap)

        let messages = gateway.recorded
        guard
            let baseline = await subscriber.expect(
                StateBurstExpectation(base: base, count: 1), timeout: .seconds(10),
                start: {
                    start = Monotonic.now()
                    for message in messages { publisher.publish(message.topic, message.payload, qos: 1, retain: true) }
                }), let echoed = baseline.first
        else {
            throw BenchmarkError.timedOut("baseline sample \(index) did not reach the subscriber within 10 s")
        }
        try await Task.sleep(for: LatencyScenario.gap)
        return (gatewayMicros, Monotonic.micros(from: start, to: echoed))
    }
}
