import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The peer of the `peer` scenario: `Benchmarks/peer/aiohomekit_mqtt_bridge.py`, a HomeKit-to-MQTT bridge
/// built on aiohomekit and paho-mqtt, run under `taskset -c <core>` on the broker and the bridges' pairing
/// file. Its output goes to a log file beside the pairing file.
final class PeerBridge: Sendable {
    static let script = "Benchmarks/peer/aiohomekit_mqtt_bridge.py"

    private let process: Process
    let log: URL

    /// Starts it; returns at once (readiness is what the scenario's subscriber sees on MQTT).
    /// - Throws: `BenchmarkError.process` when it cannot start.
    init(python: String, pairings: URL, brokerPort: Int, base: String, core: Int) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
        process.arguments = [
            "-c", String(core), python, BenchPython.path(Self.script), "--pairings", pairings.path, "--broker",
            "127.0.0.1:\(brokerPort)", "--base", base,
        ]
        log = pairings.deletingLastPathComponent().appendingPathComponent("\(base).log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw BenchmarkError.process("cannot create \(log.path)")
        }
        let output = try FileHandle(forWritingTo: log)
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw BenchmarkError.process("cannot run the peer (\(Self.script)) under taskset: \(error)")
        }
    }

    /// The Python process (taskset replaced itself with it).
    var processIdentifier: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    /// Its output so far (the last `limit` characters), for an error message.
    func output(limit: Int = 2_000) -> String {
        String(((try? String(contentsOf: log, encoding: .utf8)) ?? "").suffix(limit))
    }

    /// Whether it printed its ready line (every pairing's state published and its subscriptions made)
    /// within 60 s.
    func subscribed() async -> Bool {
        for _ in 0..<600 {
            if output().contains(#"{"ready": true}"#) { return true }
            guard process.isRunning else { return false }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// SIGTERM, then SIGKILL after 5 s.
    func stop() async {
        guard process.isRunning else { return }
        process.terminate()
        for _ in 0..<500 where process.isRunning { try? await Task.sleep(for: .milliseconds(10)) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: log)
    }
}
