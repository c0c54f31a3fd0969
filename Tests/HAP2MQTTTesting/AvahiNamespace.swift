public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Private network namespaces with their own avahi-daemon, for the discovery tests and benchmarks
/// (`scripts/lib/avahi-namespace`): only `lo` inside, a tmpfs on `/run` with the namespace's own
/// dbus-daemon and avahi-daemon, so that mDNS announcements (HAP-python's zeroconf, `--mdns`) and
/// browsing (the gateway's) stay there. Nothing may multicast outside such a namespace.
///
/// The tests that need mDNS run inside one: a test outside runs the test binary again through the helper
/// (`run`) with `HAP2MQTT_TEST_IN_AVAHI_NAMESPACE=1`, and the suites enabled `isInside` run there, with
/// their broker, accessories and gateway on the namespace's 127.0.0.1.
public enum AvahiNamespace {
    /// The variable that marks a run inside a namespace made by `run`.
    public static let insideVariable = "HAP2MQTT_TEST_IN_AVAHI_NAMESPACE"
    /// The variable that makes a namespace a must (CI runs as root): without it, tests skip where
    /// `unshare` is not permitted; with it, they fail.
    public static let requiredVariable = "HAP2MQTT_REQUIRE_AVAHI_NAMESPACE"

    /// `scripts/lib/avahi-namespace`.
    public static let script = HAPPythonAccessory.repositoryRoot.appendingPathComponent("scripts/lib/avahi-namespace")
        .path

    /// Runs `Tests/Fixtures/mdns_flood.py` with the test venv's Python: hostile `_hap._tcp` announcements
    /// onto the namespace's loopback for `seconds`, `batch` services a round (it refuses to run outside
    /// a namespace).
    /// - Returns: how many services it announced.
    /// - Throws: `HAPPythonAccessoryError.venvMissing`, or `TestSupportError.commandFailed` with its output.
    public static func flood(seconds: Int, batch: Int) async throws -> Int {
        let script = HAPPythonAccessory.repositoryRoot.appendingPathComponent("Tests/Fixtures/mdns_flood.py").path
        let output = try await ExternalTool.run(
            try HAPPythonAccessory.python(), [script, "--seconds", String(seconds), "--batch", String(batch)])
        let line = output.split(separator: "\n").last { $0.hasPrefix("{") } ?? ""
        let sent = (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["sent"] as? Int
        guard let sent else { throw TestSupportError.commandFailed("mdns_flood.py said no count: \(output)") }
        return sent
    }

    /// Whether this process runs in a namespace made by `run`: the variable is set and the network
    /// namespace has no interface but `lo` (so that a variable set by mistake never lets a test multicast
    /// on a real network).
    public static let isInside: Bool = {
        guard ProcessInfo.processInfo.environment[insideVariable] == "1" else { return false }
        return onlyLoopback()
    }()

    /// The environment for a `hap2mqtt` a test runs: outside a namespace, DNS-SD discovery off
    /// (`HAP2MQTT_HOMEKIT_DISCOVERY=false`), so that no test ever browses a real network through a
    /// machine's own avahi-daemon; inside one, nothing.
    public static var gatewayEnvironment: [String: String] {
        isInside ? [:] : ["HAP2MQTT_HOMEKIT_DISCOVERY": "false"]
    }

    /// Whether a namespace must be made (CI): then `problem` fails the tests instead of skipping them.
    public static var isRequired: Bool { ProcessInfo.processInfo.environment[requiredVariable] == "1" }

    /// Why no namespace can be made here (not root, `unshare` refused, avahi-daemon not installed); nil
    /// when one can. Asked once, from `scripts/lib/avahi-namespace --check`.
    public static let problem: String? = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = ["--check"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do {
            try ExternalTool.start(process)
        } catch {
            return "cannot run \(script): \(error)"
        }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return process.terminationStatus == 0 ? nil : output.trimmingCharacters(in: .whitespacesAndNewlines)
    }()

    /// The comment a skipped test shows.
    public static var skipReason: String {
        "needs a private network namespace with Avahi, which cannot be made here: \(problem ?? "?")"
    }

    /// Whether the tests that make a namespace run here: it can be made, or it must (then they fail).
    public static var canRun: Bool { problem == nil || isRequired }

    /// Runs `executable arguments` in a fresh namespace (with avahi-daemon unless `avahi` is false) and
    /// waits for it; `HAP2MQTT_TEST_IN_AVAHI_NAMESPACE=1` is set for it.
    /// - Returns: its exit status and everything it wrote to standard output and standard error.
    /// - Throws: `TestSupportError.timedOut` when it did not end within `timeout` (it is killed).
    /// - Parameter directory: the working directory; nil for this process's.
    public static func run(
        _ executable: String, _ arguments: [String], avahi: Bool = true, environment: [String: String] = [:],
        directory workingDirectory: URL? = nil, timeout: Duration = .seconds(60)
    ) async throws -> (status: Int32, output: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "avahi-namespace-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("output.log")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = (avahi ? [] : ["--no-avahi"]) + [executable] + arguments
        process.environment = ProcessInfo.processInfo.environment
            .merging(environment) { _, new in new }
            .merging([insideVariable: "1", "AVAHI_NAMESPACE_LOG": directory.appendingPathComponent("daemons.log").path])
        { _, new in new }
        TestFile.create(output.path)
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        if let workingDirectory { process.currentDirectoryURL = workingDirectory }
        try ExternalTool.start(process)
        try? handle.close()
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now > deadline {
                _ = Glibc.kill(process.processIdentifier, SIGKILL)
                let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
                throw TestSupportError.timedOut(
                    "\(executable) in a namespace did not end within \(timeout): \(text.suffix(4000))")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        let daemons = (try? String(contentsOf: directory.appendingPathComponent("daemons.log"), encoding: .utf8)) ?? ""
        return (
            process.terminationStatus,
            process.terminationStatus == 0 || daemons.isEmpty ? text : text + "\n-- daemons:\n" + daemons
        )
    }

    /// Whether this process's network namespace has no interface but `lo` (`/proc/net/dev` shows the
    /// reader's namespace).
    public static func onlyLoopback() -> Bool {
        guard let table = try? String(contentsOfFile: "/proc/net/dev", encoding: .utf8) else { return false }
        let names = table.split(separator: "\n").dropFirst(2).compactMap {
            $0.split(separator: ":").first?.trimmingCharacters(in: .whitespaces)
        }
        return names == ["lo"]
    }
}
