import Foundation
import HAP2MQTTTesting

/// How big a run is: `full` for the figures of the README, `tiny` for CI (a few seconds for every
/// scenario, to keep them building and working; no figure of a tiny run means anything).
enum RunSize: String, Codable, Sendable {
    case tiny, full
}

/// What every scenario gets: the size, the repetitions asked for, and a progress log on stderr.
struct BenchmarkContext: Sendable {
    var size: RunSize
    /// `--runs N`: how many times to repeat a scenario's measurement; nil for the scenario's default.
    var runs: Int?

    /// `full` or `tiny` by the size; `runs` wins where the scenario repeats whole runs.
    func pick<T>(full: T, tiny: T) -> T { size == .full ? full : tiny }

    /// One progress line on stderr (the tables go to stdout).
    func progress(_ line: String) {
        FileHandle.standardError.write(Data("  … \(line)\n".utf8))
    }

    /// A fresh mosquitto on a free loopback port for one scenario, stopped afterwards. Each scenario and
    /// run also uses its own base topic (`uniqueBase`): retained messages of a previous run would replay.
    func withBroker<T>(_ body: (MosquittoBroker) async throws -> T) async throws -> T {
        // No cap on the broker's queue: a QoS 1 burst to one subscriber must not be cut short. No Nagle on
        // the broker's sockets: with it, a PUBACK followed by a PUBLISH waits for the client's delayed ACK
        // (40 ms), and every request/reply timing would measure that, for the gateway and the baseline alike.
        let broker = try await MosquittoBroker(
            options: .init(extraConfiguration: ["max_queued_messages 0", "set_tcp_nodelay true"]))
        do {
            let result = try await body(broker)
            await broker.stop()
            return result
        } catch {
            await broker.stop()
            throw error
        }
    }

    /// A base topic no earlier run used: `bench-<scenario>-<random>`.
    func uniqueBase(_ scenario: String) -> String {
        "bench-\(scenario)-\(UUID().uuidString.prefix(8).lowercased())"
    }
}

/// One benchmark scenario. A new one is a type conforming to
/// this protocol, listed in `ScenarioRegistry.all`.
protocol BenchmarkScenario: Sendable {
    /// The command-line name (`fanout`).
    var name: String { get }
    /// One line for `--list`.
    var summary: String { get }
    func run(_ context: BenchmarkContext) async throws -> ScenarioResult
}

/// Every scenario, in the order `hap2mqtt-bench` without arguments runs them.
enum ScenarioRegistry {
    static let all: [any BenchmarkScenario] = [
        FanoutScenario(),
        LatencyScenario(),
        CommandScenario(),
        MemoryScenario(),
        HAPScenario(),
        ScaleScenario(),
        SceneScenario(),
        PeerScenario(),
        FaultsScenario(),
        FloodScenario(),
        DiscoveryScenario(kind: .return),
        DiscoveryScenario(kind: .move),
    ]

    static func named(_ name: String) -> (any BenchmarkScenario)? { all.first { $0.name == name } }
}
