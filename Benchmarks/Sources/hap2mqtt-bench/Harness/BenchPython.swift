import Foundation
import HAP2MQTTTesting

/// The Python of the HAP scenarios: a venv with HAP-python (the fixture bridges) and aiohomekit (the
/// `hap` scenario's other controller), pinned in `Benchmarks/hap/requirements.txt`.
///
/// It is `HAP2MQTT_BENCH_PYTHON` when set; otherwise `<repo>/.venv-bench`, made or brought up to date
/// with `scripts/lib/setup.sh`'s `ensure_venv` (once; it does nothing while the requirements file is
/// unchanged), so that a clean clone runs the scenarios with one command.
enum BenchPython {
    /// The checkout this benchmark was built from.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The venv's folder, relative to the repository (scripts/bench-smoke and the README name it too).
    static let venv = ".venv-bench"
    static let requirements = "Benchmarks/hap/requirements.txt"

    /// A file of the checkout.
    static func path(_ relative: String) -> String { repositoryRoot.appendingPathComponent(relative).path }

    /// The Python to run, after making the venv when needed.
    /// - Throws: `BenchmarkError.process` when the venv cannot be made (no `python3 -m venv`, no PyPI).
    static func ensure() async throws -> String {
        if let given = ProcessInfo.processInfo.environment["HAP2MQTT_BENCH_PYTHON"] {
            guard FileManager.default.isExecutableFile(atPath: given) else {
                throw BenchmarkError.process("HAP2MQTT_BENCH_PYTHON is \(given), which is not an executable")
            }
            return given
        }
        // set -e: a pip that fails must not leave a venv that counts as made.
        let script = "set -e; source scripts/lib/setup.sh; ensure_venv \(venv) \(requirements)"
        do {
            try await ExternalTool.run("bash", ["-c", script], in: repositoryRoot)
        } catch {
            throw BenchmarkError.process(
                "cannot make the benchmark's Python venv (\(venv) from \(requirements)): \(error)")
        }
        return path("\(venv)/bin/python")
    }
}
