import Foundation
import HAP2MQTTTesting

/// When, on what and from which commit a run was made: the header of the tables and of the JSON file.
struct RunInfo: Codable, Sendable {
    var date: String
    var commit: String
    var machine: String
    var size: RunSize

    static func collect(size: RunSize) async -> RunInfo {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        var commit =
            (try? await ExternalTool.run("git", ["rev-parse", "--short", "HEAD"]))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown"
        let status = (try? await ExternalTool.run("git", ["status", "--porcelain", "--untracked-files=no"])) ?? ""
        if !status.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { commit += "-dirty" }
        return RunInfo(date: formatter.string(from: Date()), commit: commit, machine: machine(), size: size)
    }

    /// CPU model, cores, memory, kernel and the load average when the run began.
    private static func machine() -> String {
        func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        let cpu =
            read("/proc/cpuinfo").split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" }
            ?? "unknown CPU"
        let memory = ProcessInfo.processInfo.physicalMemory / 1_048_576
        let load = read("/proc/loadavg").split(separator: " ").prefix(3).joined(separator: " ")
        var name = utsname()
        uname(&name)
        let kernel = withUnsafeBytes(of: name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let arch = withUnsafeBytes(of: name.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return
            "\(cpu), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(memory) MiB, Linux \(kernel) \(arch), load \(load)"
    }
}

/// The JSON file `--json` writes.
struct BenchmarkReport: Codable, Sendable {
    var run: RunInfo
    var results: [ScenarioResult]
}
