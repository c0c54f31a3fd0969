import Foundation
import HAP2MQTTTesting
import JSON
import Synchronization

/// The whole pipeline against what a user would run instead: `hap2mqtt run` and the peer bridge
/// (`Benchmarks/peer/aiohomekit_mqtt_bridge.py`, aiohomekit and paho-mqtt) on the same HAP-python
/// bridges and broker, one after the other in each run (the order alternating), each pinned to one core.
/// Per side: start-up to all state retained, peak resident memory, CPU per accessory event during a storm
/// (every On, Brightness, Hue and Saturation of every light changing once a second), the event ->
/// subscriber latency in that storm, `/set` -> result during it, and the events lost.
struct PeerScenario: BenchmarkScenario {
    let name = "peer"
    let summary =
        "hap2mqtt run beside an aiohomekit + paho-mqtt bridge, each on one core, 1/10/50 bridges: start-up, memory, CPU per event and latency in an event storm"

    /// hap2mqtt's figure as a fraction of the peer's at most.
    static let goals = (cpu: 0.2, memory: 0.25, startup: 0.2, latencyP99: 0.5)
    /// Slices of a storm round (the fixture's default): a light changes at `(aid % slices) / slices` s.
    static let slices = 20

    enum Side: String {
        case hap2mqtt, peer
    }

    /// One side's figures in one run.
    struct Run {
        var startup: Double
        var peakMB: Double
        var cpuPerEvent: Double
        /// The kernel's part of `cpuPerEvent` (system time), 0...1.
        var systemShare: Double
        var storm: StormOutcome
        var setLatencies: [Double]
        var setFailures: Int
        var changes: Int
        var cores: String
    }

    func run(_ context: BenchmarkContext) async throws -> ScenarioResult {
        let started = Monotonic.now()
        let big = context.pick(full: 149, tiny: 5)
        let home = context.pick(full: 10, tiny: 2)
        let sizes = context.pick(full: [1, 10, 50], tiny: [1, 2])
        let rounds = context.pick(full: 10, tiny: 2)
        let runs = context.runs ?? context.pick(full: 2, tiny: 1)
        let binary = try ScaleScenario.gatewayBinary()
        context.progress("Python venv for HAP-python, aiohomekit and paho-mqtt")
        let python = try await BenchPython.ensure()
        let core = ChildProcess.measuredCore
        var metrics: [Metric] = []
        var notes: [String] = []
        try await context.withBroker { broker in
            let subscriber = try await BareClient.connected("bench-storm", port: broker.port)
            let commander = try await BareClient.connected("bench-commands", port: broker.port)
            defer {
                subscriber.stop()
                commander.stop()
            }
            for bridges in sizes {
                let lights = [big] + Array(repeating: home, count: bridges - 1)
                context.progress(
                    "starting \(bridges) HAP-python bridge(s) (\(lights.reduce(0, +)) lights), pairing both sides")
                let fleet = try await BridgeFleet.start(lights: lights, python: python)
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "hap2mqtt-bench-peer-\(UUID().uuidString)")
                var results: [Side: [Run]] = [:]
                do {
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    let pairings = folder.appendingPathComponent("pairings.json")
                    try await fleet.writeAiohomekitPairings(to: pairings)
                    let rig = Rig(
                        fleet: fleet, lights: lights, broker: broker, subscriber: subscriber, commander: commander,
                        python: python, pairings: pairings, core: core, rounds: rounds,
                        controls: fleet.bridges.map { FixtureControl(port: $0.controlPort ?? 0) })
                    for index in 1...runs {
                        for side in index % 2 == 1 ? [Side.hap2mqtt, .peer] : [.peer, .hap2mqtt] {
                            let run = try await rig.measure(side, base: context.uniqueBase(name))
                            context.progress(
                                "\(bridges) bridge(s), run \(index)/\(runs), \(side.rawValue): start-up \(Table.number(run.startup)) s, peak \(Table.number(run.peakMB)) MB, \(Table.number(run.cpuPerEvent)) µs CPU/event, \(run.storm.delivered) of \(run.changes) events, event p99 \(Table.number(Summary(run.storm.latencies).p99)) ms, /set p99 \(Table.number(Summary(run.setLatencies).p99)) ms"
                            )
                            results[side, default: []].append(run)
                        }
                    }
                    await fleet.stop()
                    try? FileManager.default.removeItem(at: folder)
                } catch {
                    await fleet.stop()
                    try? FileManager.default.removeItem(at: folder)
                    throw error
                }
                let h = results[.hap2mqtt] ?? []
                let p = results[.peer] ?? []
                let label = "\(bridges) bridge\(bridges == 1 ? "" : "s")"
                let sides = ["hap2mqtt", "peer"]
                metrics += [
                    Metric(
                        name: "start-up, \(label)", unit: "s", gateway: h.map(\.startup), baseline: p.map(\.startup),
                        goals: [.ratio(.median, atMost: Self.goals.startup)], sides: sides),
                    Metric(
                        name: "peak resident, \(label)", unit: "MB", gateway: h.map(\.peakMB),
                        baseline: p.map(\.peakMB), goals: [.ratio(.max, atMost: Self.goals.memory)], sides: sides),
                    Metric(
                        name: "CPU per event, \(label)", unit: "µs", gateway: h.map(\.cpuPerEvent),
                        baseline: p.map(\.cpuPerEvent), goals: [.ratio(.median, atMost: Self.goals.cpu)], sides: sides),
                    Metric(
                        name: "event latency, \(label)", unit: "ms", gateway: h.flatMap(\.storm.latencies),
                        baseline: p.flatMap(\.storm.latencies), goals: [.ratio(.p99, atMost: Self.goals.latencyP99)],
                        sides: sides),
                    Metric(
                        name: "/set -> result, \(label)", unit: "ms", gateway: h.flatMap(\.setLatencies),
                        baseline: p.flatMap(\.setLatencies), goals: [.ratio(.p99, atMost: Self.goals.latencyP99)],
                        sides: sides),
                ]
                let lost = (h.map { $0.changes - $0.storm.delivered }, p.map { $0.changes - $0.storm.delivered })
                let peerLostNone = lost.1.allSatisfy { $0 == 0 }
                let verdict =
                    peerLostNone
                    ? (lost.0.allSatisfy { $0 == 0 }
                        ? "goal none where the peer lost none: met" : "goal none where the peer lost none: MISSED")
                    : "no goal (the peer lost some too)"
                notes.append(
                    "\(label) (\(lights.reduce(0, +)) lights, \(fleet.bridges.count * 7 + lights.reduce(0, +) * 10) characteristics): events lost per run hap2mqtt \(lost.0.map(String.init).joined(separator: ", ")), peer \(lost.1.map(String.init).joined(separator: ", ")) of \(h.first?.changes ?? 0) (\(verdict)); messages matching no change hap2mqtt \(h.map(\.storm.unmatched).reduce(0, +)), peer \(p.map(\.storm.unmatched).reduce(0, +)); /set without a result hap2mqtt \(h.map(\.setFailures).reduce(0, +)), peer \(p.map(\.setFailures).reduce(0, +)); cores allowed hap2mqtt \(h.first?.cores ?? "?"), peer \(p.first?.cores ?? "?"); the kernel's part of the CPU per event hap2mqtt \(h.map { Table.number($0.systemShare * 100) + " %" }.joined(separator: ", ")), peer \(p.map { Table.number($0.systemShare * 100) + " %" }.joined(separator: ", "))"
                )
            }
        }
        notes += [
            "bridges: the first of \(big) colour lights (10 characteristics each), the others of \(home); each side paired with every bridge (hap2mqtt by pair-setup, the peer by Add Pairing over hap2mqtt's admin session) before the timer",
            "start-up: from starting the process to the last retained state topic (hap2mqtt: also bridge/state, bridge/accessories, every accessory's JSON and availability)",
            "storm: \(rounds) rounds of 1 s; each round changes On, Brightness, Hue and Saturation of every light but the first (its Brightness takes the /set commands), in \(Self.slices) slices spread over the second; latency from the fixture's time stamp of the change to the subscriber's arrival (CLOCK_MONOTONIC)",
            "CPU per event: the side's user + system time (/proc/<pid>/stat) from the storm's start until every change arrived (or 30 s after the last round), divided by the changes made; the kernel's part is the system time's share of it",
            "/set -> result: a /set of the first light's Brightness (30, 40, …) every 200 ms during the storm, from publishing it to its /set/result",
            "peak resident: VmHWM after the storm; each side runs alone on core \(core) (taskset -c for the peer, the same affinity inherited for hap2mqtt), the bridges and the broker unpinned",
        ]
        return ScenarioResult(
            scenario: name,
            parameters:
                "HAP-python bridges (\(sizes.map(String.init).joined(separator: "/"))), storm of \(rounds) s, runs: \(runs) (hap2mqtt and peer alternating first), QoS 1 state, the \(binary.deletingLastPathComponent().lastPathComponent) binary",
            metrics: metrics, notes: notes, seconds: Monotonic.micros(from: started, to: Monotonic.now()) / 1e6)
    }
}

/// Holds what a storm start hands back from a synchronous callback.
private final class TaskBox: Sendable {
    private let task = Mutex<Task<Void, any Error>?>(nil)
    func set(_ value: Task<Void, any Error>) { task.withLock { $0 = value } }
    /// The task once set (polled: it is set right after the expectation is installed).
    func wait() async -> Task<Void, any Error> {
        while true {
            if let value = task.withLock({ $0 }) { return value }
            try? await Task.sleep(for: .milliseconds(1))
        }
    }
}

extension PeerScenario {
    /// Everything one side's run needs.
    struct Rig {
        let fleet: BridgeFleet
        let lights: [Int]
        let broker: MosquittoBroker
        let subscriber: BareClient
        let commander: BareClient
        let python: String
        let pairings: URL
        let core: Int
        let rounds: Int
        let controls: [FixtureControl]

        /// The side's process, whichever it is.
        enum Running {
            case gateway(GatewayProcess)
            case peer(PeerBridge)

            var pid: Int32? {
                switch self {
                case .gateway(let g): g.processIdentifier
                case .peer(let p): p.isRunning ? p.processIdentifier : nil
                }
            }
            var output: String {
                switch self {
                case .gateway(let g): String(g.log.suffix(2_000))
                case .peer(let p): p.output()
                }
            }
            func stop() async {
                switch self {
                case .gateway(let g):
                    await g.stop()
                    try? FileManager.default.removeItem(at: g.directory)
                case .peer(let p): await p.stop()
                }
            }
        }

        func measure(_ side: Side, base: String) async throws -> Run {
            try await subscriber.subscribe("\(base)/#")
            defer { subscriber.unsubscribe("\(base)/#") }
            let readable = lights.reduce(0) {
                $0 + $1 * ScaleScenario.perLight.readable + ScaleScenario.onBridge.readable
            }
            let iids = try await stormIIDs()
            var start: UInt64 = 0
            var running: Running?
            var startError: (any Error)?
            let ready: UInt64
            let topics: StormTopics
            switch side {
            case .hap2mqtt:
                let gateway = try GatewayProcess(brokerURL: broker.url, baseTopic: base, logLevel: "info")
                running = .gateway(gateway)
                try fleet.copyPairings(to: gateway.stateDirectory)
                let expectation = StartupExpectation(
                    base: base, accessories: lights.count + lights.reduce(0, +), characteristics: readable)
                let seen = await subscriber.expect(expectation, timeout: .seconds(300)) {
                    start = Monotonic.now()
                    do { try ChildProcess.pinned(to: core) { try gateway.start() } } catch { startError = error }
                }
                guard startError == nil, let seen, let list = seen.bridgeAccessories else {
                    await running?.stop()
                    throw BenchmarkError.timedOut(
                        "hap2mqtt run was not ready within 300 s (\(startError.map { "\($0)" } ?? subscriber.timedOutProgress))\n\(gateway.log.suffix(2_000))"
                    )
                }
                ready = try seen.readyTime().time
                topics = try StormTopics(gatewayList: list, base: base, fleet: fleet)
            case .peer:
                let expectation = PeerStartupExpectation(base: base, characteristics: readable)
                let seen = await subscriber.expect(expectation, timeout: .seconds(300)) {
                    start = Monotonic.now()
                    do {
                        running = .peer(
                            try PeerBridge(
                                python: python, pairings: pairings, brokerPort: broker.port, base: base, core: core))
                    } catch { startError = error }
                }
                guard startError == nil, let seen else {
                    let output = running?.output ?? ""
                    await running?.stop()
                    throw BenchmarkError.timedOut(
                        "the peer was not ready within 300 s (\(startError.map { "\($0)" } ?? subscriber.timedOutProgress))\n\(output)"
                    )
                }
                ready = seen.last
                // Its state is out before its subscriptions are made; the storm must not start before them.
                guard case .peer(let peer) = running, await peer.subscribed() else {
                    let output = running?.output ?? ""
                    await running?.stop()
                    throw BenchmarkError.timedOut("the peer did not say it was subscribed within 60 s\n\(output)")
                }
                topics = StormTopics(peerBase: base, fleet: fleet, lights: lights, iids: iids)
            }
            guard let running else { throw BenchmarkError.process("\(side.rawValue) did not start") }
            do {
                let run = try await storm(
                    running, topics: topics, startup: Monotonic.micros(from: start, to: ready) / 1e6)
                await running.stop()
                return run
            } catch {
                await running.stop()
                throw error
            }
        }

        /// The iids of the storm's characteristics (the same in every light of every bridge).
        private func stormIIDs() async throws -> [StormCharacteristic: Int] {
            let answer = try await controls[0].command(#"{"cmd":"storm","seconds":0}"#)
            var iids: [StormCharacteristic: Int] = [:]
            for c in StormCharacteristic.allCases {
                guard let iid = answer["iids"]?[c.fixtureName]?.int64Value else {
                    throw BenchmarkError.process("the fixture's storm gave no iid for \(c.fixtureName)")
                }
                iids[c] = Int(iid)
            }
            return iids
        }

        /// The storm, the `/set`s during it, and the side's figures.
        private func storm(_ running: Running, topics: StormTopics, startup: Double) async throws -> Run {
            guard let pid = running.pid, let cpuBefore = ChildProcess.cpuTimes(pid: pid) else {
                throw BenchmarkError.process("the side exited after start-up\n\(running.output)")
            }
            let cores = Self.allowedCores(pid: pid)
            let changes = rounds * StormCharacteristic.allCases.count * (lights.reduce(0, +) - 1)
            let record = StormRecord()
            let box = TaskBox()
            let controls = self.controls
            let rounds = self.rounds
            async let fulfilled = subscriber.expect(
                StormExpectation(topics: topics.byTopic, record: record, count: changes),
                timeout: .seconds(rounds + 30)
            ) {
                box.set(
                    Task {
                        for (index, control) in controls.enumerated() {
                            let exclude = index == 0 ? #","exclude":["Light 1"]"# : ""
                            _ = try await control.command(
                                #"{"cmd":"storm","seconds":\#(rounds),"slices":\#(PeerScenario.slices)\#(exclude)}"#)
                        }
                    })
            }
            let stormStart = Monotonic.now()
            try await box.wait().value
            let profiler = try Self.profile(running, seconds: rounds)
            var setLatencies: [Double] = []
            var setFailures = 0
            try await commander.subscribe(topics.setTopic + "/result")
            defer { commander.unsubscribe(topics.setTopic + "/result") }
            var value = 30
            while Monotonic.micros(from: stormStart, to: Monotonic.now()) < Double(rounds) * 1e6 {
                var sent: UInt64 = 0
                let payload = Array("\(value)".utf8)
                let result = await commander.expect(
                    TopicsExpectation([topics.setTopic + "/result"]), timeout: .seconds(30)
                ) { [commander] in
                    sent = Monotonic.now()
                    commander.publish(topics.setTopic, payload, qos: 1, retain: false)
                }
                if let result, let arrived = result.arrivals[topics.setTopic + "/result"],
                    String(decoding: result.payloads[topics.setTopic + "/result"] ?? [], as: UTF8.self).contains("ok")
                {
                    setLatencies.append(Monotonic.micros(from: sent, to: arrived) / 1_000)
                } else {
                    setFailures += 1
                }
                value = value == 30 ? 40 : 30
                try await Task.sleep(for: .milliseconds(200))
            }
            _ = await fulfilled
            profiler?.waitUntilExit()
            guard let cpuAfter = ChildProcess.cpuTimes(pid: pid),
                let peak = ResidentMemory.current(pid: pid)?.peakKB
            else {
                throw BenchmarkError.process("the side exited during the storm\n\(running.output)")
            }
            let used = (user: cpuAfter.user - cpuBefore.user, system: cpuAfter.system - cpuBefore.system)
            var stamps: [[Int: UInt64]] = []
            for control in controls {
                stamps.append(try await Self.stamps(control))
            }
            let outcome = StormOutcome(
                arrivals: record.all, keys: topics.keys, stamps: stamps, slices: PeerScenario.slices, rounds: rounds)
            return Run(
                startup: startup, peakMB: Double(peak) / 1024, cpuPerEvent: (used.user + used.system) / Double(changes),
                systemShare: used.system / max(1, used.user + used.system),
                storm: outcome, setLatencies: setLatencies, setFailures: setFailures, changes: changes, cores: cores)
        }

        /// With `HAP2MQTT_BENCH_PEER_PROFILE=<py-spy>` set, py-spy records the peer through the storm, as
        /// collapsed stacks in `peer-<pid>.txt` in the current folder (`py-spy record --format raw`):
        /// where the peer spends its CPU. Nothing for hap2mqtt, and nothing without the variable.
        private static func profile(_ running: Running, seconds: Int) throws -> Process? {
            guard case .peer = running, let pid = running.pid,
                let pyspy = ProcessInfo.processInfo.environment["HAP2MQTT_BENCH_PEER_PROFILE"]
            else { return nil }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: pyspy)
            process.arguments = [
                "record", "--pid", String(pid), "--duration", String(seconds), "--rate", "200", "--format", "raw",
                "--output", "peer-\(pid).txt", "--nonblocking",
            ]
            process.standardOutput = FileHandle.nullDevice  // stdout carries the tables
            process.standardError = FileHandle.nullDevice
            try process.run()
            return process
        }

        /// A bridge's time stamps of its storm's slices, once the storm has ended (within 30 s).
        private static func stamps(_ control: FixtureControl) async throws -> [Int: UInt64] {
            for _ in 0..<300 {
                let status = try await control.command(#"{"cmd":"storm_status"}"#)
                guard status["running"]?.boolValue == false else {
                    try await Task.sleep(for: .milliseconds(100))
                    continue
                }
                var stamps: [Int: UInt64] = [:]
                if case .array(let rows) = status["stamps"] {
                    for row in rows {
                        if let k = row[0]?.int64Value, let s = row[1]?.int64Value, let ns = row[2]?.int64Value {
                            stamps[Int(k) * PeerScenario.slices + Int(s)] = UInt64(ns)
                        }
                    }
                }
                return stamps
            }
            throw BenchmarkError.timedOut("a bridge's storm did not end within 30 s")
        }

        /// `Cpus_allowed_list` of the process: the proof that it was pinned.
        private static func allowedCores(pid: Int32) -> String {
            let text = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            let line = text.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") }
            return line.map { $0.split(separator: "\t").last.map(String.init) ?? "?" } ?? "?"
        }
    }
}

/// A side's state topics of the storm's characteristics, each with its key, and its `/set` topic for the
/// first light's Brightness (the light the storm leaves alone).
struct StormTopics {
    var keys: [StormKey] = []
    var byTopic: [String: Int] = [:]
    var setTopic = ""

    private mutating func add(_ key: StormKey, _ topic: String) {
        byTopic[topic] = keys.count
        keys.append(key)
    }

    /// hap2mqtt's topics, from its `bridge/accessories` list (ids `<pairing id>/<aid>`, slugs).
    init(gatewayList: [UInt8], base: String, fleet: BridgeFleet) throws {
        struct Entry: Decodable {
            struct Service: Decodable { var characteristics: [Characteristic] }
            struct Characteristic: Decodable {
                var slug: String
                var topic: String
            }
            var id: String
            var services: [Service]
        }
        let list = try JSONDecoder().decode([Entry].self, from: Data(gatewayList))
        let bridgeIndex = Dictionary(
            fleet.records.enumerated().map { ($0.element.accessoryPairingID, $0.offset) },
            uniquingKeysWith: { a, _ in a })
        for entry in list {
            guard let slash = entry.id.lastIndex(of: "/"), let aid = Int(entry.id[entry.id.index(after: slash)...]),
                aid >= 2, let bridge = bridgeIndex[String(entry.id[..<slash])]
            else { continue }
            for service in entry.services {
                for c in service.characteristics {
                    guard let kind = StormCharacteristic.allCases.first(where: { $0.slug == c.slug }) else { continue }
                    let topic = c.topic.hasPrefix(base + "/") ? c.topic : "\(base)/\(c.topic)"
                    if bridge == 0, aid == 2 {
                        if kind == .brightness { setTopic = topic + "/set" }
                    } else {
                        add(StormKey(bridge: bridge, aid: aid, characteristic: kind), topic)
                    }
                }
            }
        }
        guard !setTopic.isEmpty else { throw BenchmarkError.mqtt("bridge/accessories has no Brightness of Light 1") }
    }

    /// The peer's topics: `<base>/<alias>/<aid>/<iid>`, the alias being the bridge's pairing id.
    init(peerBase base: String, fleet: BridgeFleet, lights: [Int], iids: [StormCharacteristic: Int]) {
        for (bridge, record) in fleet.records.enumerated() {
            for aid in 2...(lights[bridge] + 1) {
                for kind in StormCharacteristic.allCases {
                    let topic = "\(base)/\(record.accessoryPairingID)/\(aid)/\(iids[kind] ?? 0)"
                    if bridge == 0, aid == 2 {
                        if kind == .brightness { setTopic = topic + "/set" }
                    } else {
                        add(StormKey(bridge: bridge, aid: aid, characteristic: kind), topic)
                    }
                }
            }
        }
    }
}
