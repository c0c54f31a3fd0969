import Foundation
import Gateway
import HAP2MQTTTesting
import HomeModel
import MQTT

/// Faults a gateway must survive, repeated against the real `hap2mqtt run` binary, a HAP-python bridge and mosquitto,
/// counting what a user would find wrong on the broker afterwards:
/// - an accessory removed from its bridge while the gateway is stopped: the retained topics and Home
///   Assistant configs of it still there once the gateway is online again;
/// - a `rename` request cut short by SIGKILL a few milliseconds after it was sent: the retained topics
///   under the old slug once the gateway is online again.
/// - QoS 1 `/set`s acknowledged by the broker and never carried out, across broker restarts
///   (`FaultsScenario+Commands.swift`);
/// - `/set`s that failed and availability that flapped behind a connection closed after 20 s idle
///   (`FaultsScenario+IdleProxy.swift`).
/// Every count should be 0 (docs/DESIGN.md "Topics": the retained state converges to the home; README
/// "Reliability").
struct FaultsScenario: BenchmarkScenario {
    let name = "faults"
    let summary =
        "accessories removed while stopped, renames cut short by SIGKILL, broker restarts, an idle-closing connection: what is stale, lost or failed"

    func run(_ context: BenchmarkContext) async throws -> ScenarioResult {
        let started = Monotonic.now()
        let removals = context.runs ?? context.pick(full: 5, tiny: 1)
        let renames = context.runs ?? context.pick(full: 30, tiny: 2)
        let restarts = context.pick(full: 10, tiny: 2)
        let idleDuration = context.pick(full: Duration.seconds(300), tiny: .seconds(30))
        _ = try ScaleScenario.gatewayBinary()
        context.progress("Python venv for HAP-python")
        let python = try await BenchPython.ensure()
        var removed: [Double] = []
        var renamed: [Double] = []
        try await context.withBroker { broker in
            for round in 1...removals {
                removed.append(Double(try await removal(broker: broker, python: python, context: context)))
                context.progress(
                    "removed while stopped, round \(round)/\(removals): \(Int(removed.last ?? 0)) stale topics")
            }
            renamed = try await killedRenames(renames, broker: broker, python: python, context: context).map(
                Double.init)
        }
        context.progress("/set every 50–200 ms, \(restarts) broker restarts")
        let commands = try await lostCommands(restarts: restarts, python: python, context: context)
        context.progress("\(commands.accepted) commands accepted, \(commands.lost) never answered")
        context.progress("/set every 15–25 s for \(idleDuration) behind a proxy that closes connections idle for 20 s")
        let idle = try await idleClosingProxy(duration: idleDuration, python: python, context: context)
        let goal = [Goal(statistic: .max, comparison: .atMost, limit: 0)]
        return ScenarioResult(
            scenario: name,
            parameters:
                "a HAP-python bridge of 6 accessories; \(removals) removals while stopped, \(renames) renames killed 0–20 ms after the request, \(restarts) broker restarts, \(idleDuration.components.seconds) s behind an idle-closing proxy",
            metrics: [
                Metric(
                    name: "stale topics and configs of an accessory removed while stopped", unit: "topics",
                    gateway: removed, goals: goal),
                Metric(
                    name: "stale topics under the old slug after a rename killed", unit: "topics", gateway: renamed,
                    goals: goal),
                Metric(
                    name: "QoS 1 /sets accepted by the broker and never answered, \(restarts) broker restarts",
                    unit: "commands", gateway: [Double(commands.lost)], goals: goal),
                Metric(
                    name: "failed /sets behind a connection closed after 20 s idle", unit: "commands",
                    gateway: [Double(idle.failed)], goals: goal),
                Metric(
                    name: "availability offline behind a connection closed after 20 s idle", unit: "messages",
                    gateway: [Double(idle.flaps)], goals: goal),
            ],
            notes: [
                "counted with a fresh MQTT client once bridge/state is online again: retained messages under <base>/<removed or old slug> and discovery configs of the removed accessory's node id",
                "a rename killed before it saved the new slug keeps the old one; such a round counts the new slug's topics instead",
                "broker restarts: \(commands.accepted) /sets of the Light's hue acknowledged (QoS 1, each with a response topic and its number as correlation data), \(commands.accepted - commands.lost) of them answered (\(commands.failed) with an error); \(commands.written) writes reached the accessory (commands that waited behind a write of the hue were merged with the newest, docs/DESIGN.md \"Writes\"), which ended \(commands.endsAtLastValue ? "at" : "NOT at") the last command's value; mosquitto with persistence, stopped with SIGTERM and started on the same port",
                "idle-closing proxy: \(idle.sent) /sets of the Light's brightness, \(idle.idleCloses) connections closed idle by the proxy\(idle.firstFailure.map { "; first failure: \($0)" } ?? "")",
            ],
            seconds: Monotonic.micros(from: started, to: Monotonic.now()) / 1e6)
    }

    /// One bridge, one gateway: online, stopped, the Switch removed, started again; the stale topics.
    private func removal(broker: MosquittoBroker, python: String, context: BenchmarkContext) async throws -> Int {
        let base = context.uniqueBase(name)
        let bridge = try await HAPPythonAccessory.start(python: python)
        let gateway = try GatewayProcess(brokerURL: broker.url, baseTopic: base, logLevel: "info")
        defer { try? FileManager.default.removeItem(at: gateway.directory) }
        do {
            try await pair(gateway, with: bridge)
            let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["\(base)/bridge/state"])
            try await start(gateway, observer: observer, base: base)
            let snapshot = try await retained(on: broker, ["\(base)/#", "homeassistant/#"])
            // The node id the gateway gives the accessory under this base topic.
            guard
                let id = try Self.accessoryID(slug: "switch", in: snapshot["\(base)/bridge/accessories"])
                    .flatMap(AccessoryID.init)
            else { throw BenchmarkError.process("bridge/accessories lists no switch") }
            let node = HomeAssistantDiscovery.nodeID(of: id, base: base)
            await gateway.stop()
            _ = try await bridge.removeAccessory("Switch")
            await observer.clear()
            try await start(gateway, observer: observer, base: base)
            let after = try await retained(on: broker, ["\(base)/#", "homeassistant/#"])
            await gateway.stop()
            await observer.disconnect()
            await bridge.stop()
            return after.keys.filter {
                $0.hasPrefix("\(base)/switch/") || $0 == "\(base)/switch" || $0.contains("/\(node)/")
            }.count
        } catch {
            await gateway.stop()
            await bridge.stop()
            throw error
        }
    }

    /// One bridge, one gateway, `count` renames of the Light each killed 0–20 ms after the request; the
    /// stale topics after each restart.
    private func killedRenames(_ count: Int, broker: MosquittoBroker, python: String, context: BenchmarkContext)
        async throws -> [Int]
    {
        let base = context.uniqueBase(name)
        let bridge = try await HAPPythonAccessory.start(python: python)
        let gateway = try GatewayProcess(brokerURL: broker.url, baseTopic: base, logLevel: "info")
        defer { try? FileManager.default.removeItem(at: gateway.directory) }
        var counts: [Int] = []
        do {
            try await pair(gateway, with: bridge)
            let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["\(base)/bridge/state"])
            try await start(gateway, observer: observer, base: base)
            var slug = "light"
            for round in 1...count {
                let to = "lamp_\(round)"
                try await observer.publish("\(base)/bridge/request/rename", #"{"accessory":"\#(slug)","to":"\#(to)"}"#)
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...20)))
                await gateway.kill()
                await observer.clear()
                try await start(gateway, observer: observer, base: base)
                let after = try await retained(on: broker, ["\(base)/#"])
                // Which slug the light has now: the new one when the kill came after the slug map was saved.
                let now = after["\(base)/\(to)/lightbulb/on"] != nil ? to : slug
                let stale = now == to ? slug : to
                counts.append(after.keys.filter { $0.hasPrefix("\(base)/\(stale)/") || $0 == "\(base)/\(stale)" }.count)
                context.progress("rename killed, round \(round)/\(count): now \(now), \(counts.last ?? 0) stale topics")
                slug = now
            }
            await gateway.stop()
            await observer.disconnect()
            await bridge.stop()
            return counts
        } catch {
            await gateway.stop()
            await bridge.stop()
            throw error
        }
    }

    private func pair(_ gateway: GatewayProcess, with bridge: HAPPythonAccessory) async throws {
        try await pair(gateway, port: bridge.port, code: bridge.setupCode)
    }

    /// `hap2mqtt pair` with the accessory server at 127.0.0.1:`port` (the bridge's, or a proxy's).
    func pair(_ gateway: GatewayProcess, port: UInt16, code: String) async throws {
        try gateway.start(["pair", "--host", "127.0.0.1", "--port", String(port), "--code", code])
        let deadline = ContinuousClock.now + .seconds(60)
        while gateway.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        guard !gateway.isRunning, gateway.terminationStatus == 0 else {
            throw BenchmarkError.process("hap2mqtt pair failed:\n\(gateway.log.suffix(2_000))")
        }
    }

    /// Starts `hap2mqtt run` and waits for `bridge/state` online.
    func start(_ gateway: GatewayProcess, observer: MQTTTestClient, base: String) async throws {
        try gateway.start()
        do {
            _ = try await observer.waitFor(topic: "\(base)/bridge/state", timeout: .seconds(120)) {
                $0.bridgeState == "online"
            }
        } catch {
            throw BenchmarkError.timedOut("hap2mqtt run did not come online: \(error)\n\(gateway.log.suffix(2_000))")
        }
    }

    /// The retained messages on `filters`, by topic.
    private func retained(on broker: MosquittoBroker, _ filters: [String]) async throws -> [String: String] {
        try await MQTTTestClient.retainedSnapshot(of: broker, filters)
    }

    /// The id of the accessory with `slug` in a `bridge/accessories` payload.
    private static func accessoryID(slug: String, in list: String?) throws -> String? {
        guard let data = list?.data(using: .utf8),
            let entries = try JSONSerialization.jsonObject(with: data) as? [[String: Any]]
        else { return nil }
        return entries.first { $0["slug"] as? String == slug }?["id"] as? String
    }
}
