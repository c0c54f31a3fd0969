import Foundation
import HAP2MQTTTesting

/// Scenarios `return` and `move`: a HAP-python bridge that announces itself over mDNS, paired
/// with the real `hap2mqtt run`, is stopped (SIGTERM: its zeroconf says goodbye) and started again, on
/// its port (`return`) or on another one (`move`). Measured: from the accessory being ready again (its
/// server listening and its first announcement sent, the fixture's `ready_ns`) to the subscriber receiving
/// `online` on an accessory's availability topic. Each side of a pair of samples: the gateway with
/// discovery, and the same gateway with `homekit.discovery: false`, which has only its back-off (`return`)
/// or never finds the new port (`move`, given up after `moveLimit`).
///
/// mDNS needs a private network namespace with its own avahi-daemon (`scripts/lib/avahi-namespace`):
/// outside one, the scenario runs this benchmark again inside one (`subcommand`) and reads its result.
struct DiscoveryScenario: BenchmarkScenario {
    enum Kind: String, Sendable {
        case `return`, move
    }

    let kind: Kind
    var name: String { kind.rawValue }
    var summary: String {
        switch kind {
        case .return:
            "an announced accessory stopped and started again: from ready to availability online, with discovery and with the back-off alone"
        case .move:
            "an announced accessory started again on another port: from ready to availability online, with discovery and without"
        }
    }

    /// The hidden command that runs one of these scenarios inside a namespace:
    /// `hap2mqtt-bench discovery-inside <scenario> <size> <runs|-> <result file>`.
    static let subcommand = "discovery-inside"
    /// How long the accessory stays stopped: long enough for the gateway to be waiting out a back-off of
    /// a few seconds (0.5 + 1 + 2 s of attempts, then a wait of about 4 s).
    static let pause = Duration.seconds(4)
    /// How long `move` waits without discovery before it counts the sample as never.
    static let moveLimit = Duration.seconds(30)

    func run(_ context: BenchmarkContext) async throws -> ScenarioResult {
        if AvahiNamespace.isInside { return try await measure(context) }
        let started = Monotonic.now()
        if let problem = AvahiNamespace.problem {
            return ScenarioResult(
                scenario: name, parameters: "not run", metrics: [],
                notes: [
                    "skipped: needs a private network namespace with avahi-daemon, which cannot be made here: \(problem)"
                ],
                seconds: Monotonic.micros(from: started, to: Monotonic.now()) / 1e6)
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bench-\(name)-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        // The venv is made out here: the namespace has no network to fetch packages with.
        let python = try await BenchPython.ensure()
        context.progress("running inside a private network namespace with its own avahi-daemon")
        let (status, output) = try await AvahiNamespace.run(
            binary, [Self.subcommand, name, context.size.rawValue, context.runs.map(String.init) ?? "-", file.path],
            environment: ["HAP2MQTT_BENCH_PYTHON": python], timeout: .seconds(1800))
        guard status == 0, let data = try? Data(contentsOf: file) else {
            throw BenchmarkError.process("\(name) in the namespace failed (status \(status)):\n\(output.suffix(6000))")
        }
        FileHandle.standardError.write(
            Data(output.split(separator: "\n").filter { $0.hasPrefix("  … ") }.map { $0 + "\n" }.joined().utf8))
        return try JSONDecoder().decode(ScenarioResult.self, from: data)
    }

    /// `subcommand`: runs the scenario named in `arguments` here (inside a namespace) and writes its
    /// result as JSON; exits 1 on failure.
    static func runInside(_ arguments: [String]) async {
        guard arguments.count == 4, let kind = Kind(rawValue: arguments[0]), let size = RunSize(rawValue: arguments[1]),
            AvahiNamespace.isInside
        else {
            FileHandle.standardError.write(
                Data(
                    "usage: hap2mqtt-bench \(subcommand) return|move tiny|full RUNS|- FILE (inside a namespace)\n".utf8)
            )
            exit(2)
        }
        do {
            let result = try await DiscoveryScenario(kind: kind).measure(
                BenchmarkContext(size: size, runs: Int(arguments[2])))
            try JSONEncoder().encode(result).write(to: URL(fileURLWithPath: arguments[3]))
        } catch {
            FileHandle.standardError.write(Data("hap2mqtt-bench: \(error)\n".utf8))
            exit(1)
        }
    }

    /// The measurement, inside a namespace.
    private func measure(_ context: BenchmarkContext) async throws -> ScenarioResult {
        let started = Monotonic.now()
        let samples = context.runs ?? context.pick(full: 10, tiny: 1)
        let python = try await BenchPython.ensure()
        var with: [Double] = []
        var without: [Double] = []
        var never = 0
        try await context.withBroker { broker in
            let subscriber = try await BareClient.connected("bench-subscriber", port: broker.port)
            defer { subscriber.stop() }
            // A tiny run (CI) only shows that the scenario works: the comparison without discovery waits
            // out back-offs and time-outs.
            for discovery in context.pick(full: [true, false], tiny: [true]) {
                // Without discovery a moved accessory is never found again: one sample shows it.
                let count = kind == .move && !discovery ? 1 : samples
                context.progress(
                    "\(name), discovery \(discovery ? "on" : "off"): \(count) sample\(count == 1 ? "" : "s")")
                let rig = try await Rig.start(
                    broker: broker, python: python, discovery: discovery, base: context.uniqueBase(name))
                do {
                    guard
                        await subscriber.expect(
                            PayloadExpectation(topic: rig.availability, payload: "online"), timeout: .seconds(60),
                            start: {
                                Task { try? await subscriber.subscribe(rig.availability) }
                            }) != nil
                    else {
                        throw BenchmarkError.timedOut(
                            "the gateway was not online within 60 s\n\(rig.gateway.log.suffix(2000))")
                    }
                    for index in 1...count {
                        let seconds = try await sample(rig, subscriber: subscriber, discovery: discovery)
                        context.progress("sample \(index): \(seconds.map { Table.number($0) + " s" } ?? "never")")
                        if let seconds {
                            if discovery { with.append(seconds) } else { without.append(seconds) }
                        } else {
                            never += 1
                        }
                    }
                    subscriber.unsubscribe(rig.availability)
                    await rig.stop()
                } catch {
                    await rig.stop()
                    throw error
                }
            }
        }
        let goal: Double = kind == .return ? 1 : 5
        var metrics = [
            Metric(
                name: "ready → online, discovery on", unit: "s", gateway: with,
                goals: [Goal(statistic: .median, comparison: .atMost, limit: goal)])
        ]
        if !without.isEmpty {
            metrics.append(Metric(name: "ready → online, discovery off (back-off only)", unit: "s", gateway: without))
        }
        var notes = [
            "from the accessory's ready line (server listening, first announcement sent; CLOCK_MONOTONIC in the fixture) to the subscriber receiving online on <base>/light/availability",
            "the accessory (HAP-python, SIGTERM, so its zeroconf says goodbye) stays stopped \(Self.pause.components.seconds) s, during which the gateway without discovery is in its back-off",
        ]
        if never > 0 {
            notes.append(
                "discovery off: never online within \(Self.moveLimit.components.seconds) s (nothing tells the gateway the new port; one sample)"
            )
        }
        return ScenarioResult(
            scenario: name,
            parameters: "\(samples) samples each, in a private network namespace with its own avahi-daemon",
            metrics: metrics, notes: notes, seconds: Monotonic.micros(from: started, to: Monotonic.now()) / 1e6)
    }

    /// One stop and start; the seconds from ready to online, nil when it never came.
    private func sample(_ rig: Rig, subscriber: BareClient, discovery: Bool) async throws -> Double? {
        guard
            await subscriber.expect(
                PayloadExpectation(topic: rig.availability, payload: "offline"), timeout: .seconds(30),
                start: {
                    Task { await rig.accessory.stop() }
                }) != nil
        else {
            throw BenchmarkError.timedOut(
                "the stopped accessory did not go offline within 30 s\n\(rig.gateway.log.suffix(2000))")
        }
        try await Task.sleep(for: Self.pause)
        let limit = kind == .move && !discovery ? Self.moveLimit : .seconds(120)
        let kind = self.kind
        var starting: Task<Void, any Error>?
        let online = await subscriber.expect(
            PayloadExpectation(topic: rig.availability, payload: "online"), timeout: limit,
            start: {
                starting = Task {
                    if kind == .move {
                        try await rig.accessory.startOnAnotherPort()
                    } else {
                        try await rig.accessory.start()
                    }
                }
            })
        try await starting?.value
        guard let ready = rig.accessory.readyNanoseconds else {
            throw BenchmarkError.process("the accessory gave no ready time")
        }
        guard let arrival = online?.arrival else {
            if kind == .move && !discovery { return nil }
            throw BenchmarkError.timedOut(
                "the accessory did not come back online within \(limit)\n\(rig.gateway.log.suffix(2000))")
        }
        return Monotonic.micros(from: ready, to: arrival) / 1e6
    }

    /// A broker's gateway paired with an announced accessory.
    private struct Rig: Sendable {
        let accessory: HAPPythonAccessory
        let gateway: GatewayProcess
        let availability: String

        static func start(broker: MosquittoBroker, python: String, discovery: Bool, base: String) async throws -> Rig {
            let accessory = try await HAPPythonAccessory.start(python: python, announced: true)
            let gateway = try GatewayProcess(
                brokerURL: broker.url, baseTopic: base, environment: ["HAP2MQTT_HOMEKIT_DISCOVERY": String(discovery)],
                logLevel: "debug")
            let id = try await accessory.status().pairingID
            let paired = try await gateway.runCommand(["pair", "--id", id, "--code", accessory.setupCode])
            guard paired.status == 0 else {
                throw BenchmarkError.process("hap2mqtt pair --id failed: \(paired.output)")
            }
            try gateway.start()
            return Rig(accessory: accessory, gateway: gateway, availability: "\(base)/light/availability")
        }

        func stop() async {
            await gateway.stop()
            await accessory.stop()
            try? FileManager.default.removeItem(at: gateway.directory)
        }
    }
}

/// Fulfilled by a message on `topic` with exactly `payload`; keeps its arrival time.
struct PayloadExpectation: Expectation {
    let topic: String
    let payload: String
    private(set) var arrival: UInt64?

    init(topic: String, payload: String) {
        self.topic = topic
        self.payload = payload
    }

    mutating func observe(topic: String, payload: UnsafeRawBufferPointer, at time: UInt64) -> Bool {
        guard topic == self.topic, String(decoding: payload, as: UTF8.self) == self.payload else { return false }
        arrival = time
        return true
    }

    var progress: String { "no \(payload) on \(topic)" }
}
