import HomeModel
import MQTT

/// Scenario 3: `/set` commands one at a time, from the client's publish to its receipt of the `ok`
/// result, with the in-memory provider answering at once; against a bare echo client that answers a
/// request topic from its message callback with the gateway's three messages of a confirmed write: the
/// state, the accessory's JSON, and the result on `…/result`. One client sends the commands and receives
/// the results for both sides; gateway and baseline samples alternate.
struct CommandScenario: BenchmarkScenario {
    let name = "command"
    let summary =
        "/set commands one at a time (1,000 samples): publish → ok result, against a bare request → reply echo"

    func run(_ context: BenchmarkContext) async throws -> ScenarioResult {
        let started = Monotonic.now()
        let home = BenchmarkHome(accessories: context.pick(full: 100, tiny: 10))
        let writable = home.changeable.filter(\.isWritable)
        let samples = (context.runs ?? 1) * context.pick(full: 1_000, tiny: 50)
        let (gateway, baseline) = try await context.withBroker { broker in
            let base = context.uniqueBase(name)
            let echoBase = CommandScenario.echoBase(base)
            let requester = try await BareClient.connected("bench-requester", port: broker.port)
            defer { requester.stop() }
            try await requester.subscribe("\(base)/+/+/+/set/result")
            try await requester.subscribe("\(echoBase)/+/+/+/set/result")
            try await requester.subscribe("\(base)/bridge/accessories")
            return try await GatewayRig.with(brokerURL: broker.url, base: base, accessories: home.accessories) { rig in
                let topics = try await rig.publishHome(to: requester)
                let before = try await CommandScenario.gatewayMessages(
                    writable, topics, base: base, echoBase: echoBase, port: broker.port)
                let echo = try await BareClient.connected(
                    "bench-echo", port: broker.port, echo: .init(replySuffix: "/result", qos: 1, before: before))
                defer { echo.stop() }
                try await echo.subscribe("\(echoBase)/+/+/+/set")
                return try await context.pairedSamples(samples) { index in
                    let c = writable[index % writable.count]
                    let payload = Array(c.cycle.value(index / writable.count + 1).description.utf8)
                    guard let state = topics.stateTopic(c.address) else {
                        throw BenchmarkError.mqtt("no state topic for \(c.address)")
                    }
                    let g = try await roundTrip(requester, "\(state)/set", payload)
                    let b = try await roundTrip(requester, echoBase + state.dropFirst(base.count) + "/set", payload)
                    return (g, b)
                }
            }
        }
        return ScenarioResult(
            scenario: name,
            parameters:
                "\(samples) commands at QoS 1 over \(writable.count) writable characteristics, provider answering at once",
            metrics: [
                Metric(
                    name: "command round trip", unit: "µs", gateway: gateway, baseline: baseline)
            ],
            notes: [
                "gateway: publish of <state>/set to receipt of <state>/set/result with status ok (the write went through the home store to the provider)",
                "baseline: publish of a request to receipt of the echo client's reply, which it sends after the gateway's other two messages of a confirmed write (the state, and the accessory's JSON as the gateway retained it, both retained), same payload sizes, QoS 1 throughout",
            ],
            seconds: Monotonic.micros(from: started, to: Monotonic.now()) / 1e6)
    }

    /// What the gateway sends before a confirmed write's result, for the echo client to send too (the
    /// baseline's messages are the gateway's): for each writable characteristic's request topic under
    /// `echoBase`, its state topic and its accessory's JSON as the gateway retained it at start, moved
    /// under `echoBase`.
    /// - Throws: `BenchmarkError.timedOut` when an accessory's JSON is not retained within 30 s.
    static func gatewayMessages(
        _ writable: [BenchmarkHome.Changeable], _ topics: PublishedTopics, base: String, echoBase: String, port: Int
    ) async throws -> [String: BareClient.StateAndAccessory] {
        let accessoryTopics = Set(writable.compactMap { topics.accessoryTopic($0.address.accessory) })
        let reader = try await BareClient.connected("bench-accessory-json", port: port)
        defer { reader.stop() }
        guard
            let retained = await reader.expect(
                TopicsExpectation(accessoryTopics), timeout: .seconds(30),
                start: { Task { try? await reader.subscribe("\(base)/+") } })
        else {
            throw BenchmarkError.timedOut("the accessories' JSON was not retained under \(base) within 30 s")
        }
        let moved = { (topic: String) in echoBase + topic.dropFirst(base.count) }
        var before: [String: BareClient.StateAndAccessory] = [:]
        for c in writable {
            guard let state = topics.stateTopic(c.address), let accessory = topics.accessoryTopic(c.address.accessory),
                let json = retained.payloads[accessory]
            else { throw BenchmarkError.mqtt("no state topic or accessory JSON for \(c.address)") }
            before[moved(state) + "/set"] = .init(
                stateTopic: moved(state), accessoryTopic: moved(accessory), accessoryJSON: json)
        }
        return before
    }

    /// The echo client's base topic: as long as the gateway's, so requests and replies have the gateway's
    /// topic lengths, but outside its command filters.
    static func echoBase(_ base: String) -> String { base.dropLast(4) + "echo" }

    /// Publishes a request at QoS 1 and returns the µs until its `…/result` arrived.
    private func roundTrip(_ requester: BareClient, _ topic: String, _ payload: [UInt8]) async throws -> Double {
        let resultTopic = topic + "/result"
        var start: UInt64 = 0
        guard
            let result = await requester.expect(
                TopicsExpectation([resultTopic]), timeout: .seconds(10),
                start: {
                    start = Monotonic.now()
                    requester.publish(topic, payload, qos: 1, retain: false)
                }), let arrival = result.arrivals[resultTopic]
        else {
            throw BenchmarkError.timedOut("no answer on \(resultTopic) within 10 s")
        }
        let text = String(decoding: result.payloads[resultTopic] ?? [], as: UTF8.self)
        guard text.hasPrefix(#"{"status":"ok""#) else { throw BenchmarkError.mqtt("\(topic) answered \(text)") }
        try await Task.sleep(for: LatencyScenario.gap)
        return Monotonic.micros(from: start, to: arrival)
    }
}
