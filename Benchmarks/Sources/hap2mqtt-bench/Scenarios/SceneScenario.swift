import Foundation
import HAP2MQTTTesting
import JSON

/// Scenario: a scene recall (docs/scenes-and-groups.md) through the real `hap2mqtt run` binary with three
/// HAP-python bridges of 7, 7 and 6 lights, against the slowest single write in the same run: the recall
/// sets the brightness of all 20 lights (one HAP request per bridge, all bridges at once) and is timed from
/// the publish of `scene_recall` to its one answer; the baseline sample is the slowest of three `/set`
/// round trips, one light of each bridge, sent one after the other. The goal: the recall takes at most
/// 1.5 × the slowest single write (median).
struct SceneScenario: BenchmarkScenario {
    let name = "scene"
    let summary =
        "scene recall of 20 lights across 3 HAP-python bridges (one answer) against the slowest of three single /set round trips"

    /// Lights per bridge.
    static let lights = [7, 7, 6]

    func run(_ context: BenchmarkContext) async throws -> ScenarioResult {
        let started = Monotonic.now()
        let samples = (context.runs ?? 1) * context.pick(full: 100, tiny: 10)
        _ = try ScaleScenario.gatewayBinary()
        context.progress("Python venv for HAP-python")
        let python = try await BenchPython.ensure()
        context.progress("starting 3 HAP-python bridges of \(Self.lights) lights and pairing with them")
        let fleet = try await BridgeFleet.start(lights: Self.lights, python: python)
        let measured: (recall: [Double], single: [Double])
        do {
            measured = try await context.withBroker { broker in
                try await measure(fleet: fleet, broker: broker, samples: samples, context: context)
            }
            await fleet.stop()
        } catch {
            await fleet.stop()
            throw error
        }
        return ScenarioResult(
            scenario: name,
            parameters:
                "\(samples) recalls and as many triples of single writes, alternating; bridges of \(Self.lights) lights",
            metrics: [
                Metric(
                    name: "recall of 20 lights on 3 bridges", unit: "µs", gateway: measured.recall,
                    baseline: measured.single, goals: [.ratio(.median, atMost: 1.5)],
                    sides: ["recall", "slowest single write"])
            ],
            notes: [
                "recall: publish of bridge/request/scene_recall to receipt of bridge/response/scene_recall with status ok; the scene sets Brightness of every light (two scenes of different values, alternating, so every write changes the value)",
                "slowest single write: for each bridge, publish of one light's brightness/set to receipt of its set/result with status ok, one bridge after the other; the sample is the slowest of the three",
                "ratio: recall / slowest single write; at most 1.5 is the goal (one request per bridge, the bridges written at once)",
            ],
            seconds: Monotonic.micros(from: started, to: Monotonic.now()) / 1e6)
    }

    private func measure(fleet: BridgeFleet, broker: MosquittoBroker, samples: Int, context: BenchmarkContext)
        async throws -> (recall: [Double], single: [Double])
    {
        let base = context.uniqueBase(name)
        let client = try await BareClient.connected("bench-scene", port: broker.port)
        defer { client.stop() }
        try await client.subscribe("\(base)/#")
        let gateway = try GatewayProcess(brokerURL: broker.url, baseTopic: base, logLevel: "info")
        defer { try? FileManager.default.removeItem(at: gateway.directory) }
        try fleet.copyPairings(to: gateway.stateDirectory)
        let accessoriesTopic = "\(base)/bridge/accessories"
        var startError: (any Error)?
        let seen = await client.expect(
            TopicsExpectation([accessoriesTopic, "\(base)/bridge/state"]), timeout: .seconds(120)
        ) {
            do { try gateway.start() } catch { startError = error }
        }
        defer { Task { await gateway.stop() } }
        if let startError { throw BenchmarkError.process("cannot start hap2mqtt: \(startError)") }
        guard let listed = seen?.payloads[accessoriesTopic] else {
            throw BenchmarkError.timedOut("hap2mqtt run was not ready within 120 s\n\(gateway.log.suffix(2_000))")
        }
        let lights = try Self.lightSlugs(listed)
        guard lights.count == Self.lights.reduce(0, +) else {
            throw BenchmarkError.mqtt("bridge/accessories lists \(lights.count) lights, not 20")
        }
        var singles: [String] = []
        for bridge in fleet.bridges {
            let id = try await bridge.status().pairingID.uppercased()
            guard let light = lights.first(where: { $0.id.hasPrefix(id + "/") }) else {
                throw BenchmarkError.mqtt("no light of bridge \(id) in bridge/accessories")
            }
            singles.append("\(base)/\(light.slug)/lightbulb/brightness/set")
        }
        for (scene, value) in [("dim", 20), ("bright", 80)] {
            var values = JSONObject()
            for light in lights { values.append(light.slug, ["lightbulb": ["brightness": JSONValue(value)]]) }
            let request: JSONValue = ["name": .string(scene), "values": .object(values)]
            let answer = try await roundTrip(
                client, "\(base)/bridge/request/scene_store", Array(request.encoded()),
                answer: "\(base)/bridge/response/scene_store")
            guard answer.ok else { throw BenchmarkError.mqtt("scene_store answered \(answer.text)") }
        }
        context.progress("measuring \(samples) recalls against as many triples of single writes")
        var recalls: [Double] = []
        var slowest: [Double] = []
        for index in 0..<samples {
            let scene = index % 2 == 0 ? "dim" : "bright"
            let recall = try await roundTrip(
                client, "\(base)/bridge/request/scene_recall", Array(#"{"scene":"\#(scene)"}"#.utf8),
                answer: "\(base)/bridge/response/scene_recall")
            guard recall.ok else { throw BenchmarkError.mqtt("scene_recall answered \(recall.text)") }
            recalls.append(recall.micros)
            var worst = 0.0
            for topic in singles {
                let single = try await roundTrip(
                    client, topic, Array(String(index % 2 == 0 ? 30 : 70).utf8), answer: topic + "/result")
                guard single.ok else { throw BenchmarkError.mqtt("\(topic) answered \(single.text)") }
                worst = max(worst, single.micros)
            }
            slowest.append(worst)
        }
        await gateway.stop()
        return (recalls, slowest)
    }

    /// Every light in `bridge/accessories`: its id and slug.
    private static func lightSlugs(_ payload: [UInt8]) throws -> [(id: String, slug: String)] {
        guard let list = (try? JSONValue(parsing: payload))?.arrayValue else {
            throw BenchmarkError.mqtt("bridge/accessories is not a JSON array")
        }
        return list.compactMap { entry in
            guard let id = entry["id"]?.stringValue, let slug = entry["slug"]?.stringValue,
                let services = entry["services"]?.arrayValue,
                services.contains(where: { $0["slug"]?.stringValue == "lightbulb" })
            else { return nil }
            return (id, slug)
        }
    }

    /// Publishes at QoS 1 and returns the µs until `answer` arrived, and whether it said ok.
    private func roundTrip(_ client: BareClient, _ topic: String, _ payload: [UInt8], answer: String) async throws
        -> (micros: Double, ok: Bool, text: String)
    {
        var start: UInt64 = 0
        guard
            let result = await client.expect(
                TopicsExpectation([answer]), timeout: .seconds(30),
                start: {
                    start = Monotonic.now()
                    client.publish(topic, payload, qos: 1, retain: false)
                }), let arrival = result.arrivals[answer]
        else {
            throw BenchmarkError.timedOut("no answer on \(answer) within 30 s")
        }
        let text = String(decoding: result.payloads[answer] ?? [], as: UTF8.self)
        return (Monotonic.micros(from: start, to: arrival), text.hasPrefix(#"{"status":"ok""#), text)
    }
}
