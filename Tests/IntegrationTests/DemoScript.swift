import Foundation
import HAP2MQTTTesting
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `scripts/demo` as a child process, the way a user runs it, but with the knobs a test needs: its own
/// `.demo` folder in a temporary directory, free ports for the broker and the bridge (so a broker on 1883
/// is never touched and the printed commands carry `-p PORT`), and no set-up step (`scripts/test` already
/// installed the packages and the venv and built the binary, which is the debug one beside the tests).
final class DemoScript: Sendable {
    /// The temporary folder: `demo/` (the demo's folder) and `output-<n>.txt` (what run n printed).
    let folder: URL
    /// The folder the script keeps its state, logs and pid files in (`HAP2MQTT_DEMO_DIR`).
    var demoDirectory: URL { folder.appendingPathComponent("demo") }
    /// The broker's port (`HAP2MQTT_DEMO_MQTT_PORT`).
    let mqttPort: Int
    /// The bridge's HAP port (`HAP2MQTT_DEMO_HAP_PORT`), the same for every run.
    let hapPort: Int
    private let environment: [String: String]
    private let state = Mutex<(process: Process?, runs: Int)>((nil, 0))

    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Chooses the ports and the folder; nothing runs until `start()`.
    /// - Throws: `TestSupportError.toolMissing` when the hap2mqtt binary or the HAP-python venv is missing.
    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("hap2mqtt-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        mqttPort = try LoopbackSocket.freePort()
        hapPort = try LoopbackSocket.freePort()
        let python =
            ProcessInfo.processInfo.environment["HAP2MQTT_TEST_PYTHON"]
            ?? Self.repositoryRoot.appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw TestSupportError.toolMissing(
                "no Python with HAP-python at \(python): run scripts/test, which makes the venv")
        }
        environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HAP2MQTT_") }.merging(
            [
                "HAP2MQTT_DEMO_DIR": folder.appendingPathComponent("demo").path,
                "HAP2MQTT_DEMO_MQTT_PORT": "\(mqttPort)",
                "HAP2MQTT_DEMO_HAP_PORT": "\(hapPort)",
                "HAP2MQTT_DEMO_SKIP_SETUP": "1",
                // The web page is on by default on 8780; here on a free port, as other tests run beside it.
                "HAP2MQTT_FRONTEND_PORT": "0",
                "HAP2MQTT_DEMO_BINARY": try GatewayProcess.binary().path,
                "HAP2MQTT_DEMO_PYTHON": python,
            ].merging(AvahiNamespace.gatewayEnvironment) { knob, _ in knob }
        ) { _, knob in knob }
    }

    deinit {
        // A test that failed half-way must not leave the demo running: the script's own trap stops the
        // gateway, the bridge and the broker; whatever still runs after 20 s is killed.
        if let process = state.withLock({ $0.process }), process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            for _ in 0..<200 where process.isRunning { usleep(100_000) }
        }
        for pid in pids.values where Self.isRunning(pid) { kill(pid, SIGKILL) }
        if let process = state.withLock({ $0.process }), process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: folder)
    }

    /// Runs `scripts/demo` (again: the demo folder stays); returns at once.
    ///
    /// `env --default-signal=INT` gives the script the default SIGINT action: a child keeps the signals
    /// its parent ignores, the test process ignores SIGINT once a test has handled it, and bash cannot
    /// trap a signal that was ignored when it started.
    func start() throws {
        let run = state.withLock { s in
            s.runs += 1
            return s.runs
        }
        let output = outputFile(run)
        TestFile.create(output.path)
        let handle = try FileHandle(forWritingTo: output)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try ExternalTool.require("env"))
        process.arguments = ["--default-signal=INT", Self.repositoryRoot.appendingPathComponent("scripts/demo").path]
        process.environment = environment
        process.currentDirectoryURL = folder
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try ExternalTool.start(process)
        state.withLock { $0.process = process }
    }

    private func outputFile(_ run: Int) -> URL { folder.appendingPathComponent("output-\(run).txt") }

    /// What the current run printed so far (standard output and standard error).
    var output: String {
        let run = state.withLock { $0.runs }
        return (try? String(contentsOf: outputFile(run), encoding: .utf8)) ?? ""
    }

    /// Whether the script is running.
    var isRunning: Bool { state.withLock { $0.process?.isRunning ?? false } }

    /// Waits until the output contains `text`.
    /// - Throws: `TestSupportError.timedOut` with the output when it does not appear in time or the script
    ///   ended first.
    func waitForOutput(_ text: String, timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !output.contains(text) {
            guard isRunning, ContinuousClock.now < deadline else {
                throw TestSupportError.timedOut(
                    "scripts/demo did not print \"\(text)\" (running: \(isRunning)); it printed:\n\(output)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The arguments of the command line the script printed for `tool` (`mosquitto_sub`, `mosquitto_pub`),
    /// split as a shell would split this simple line (words, single quotes).
    /// - Throws: `TestSupportError.commandFailed` when no such line was printed.
    func printedCommand(_ tool: String) throws -> [String] {
        guard
            let line = output.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) })
                .first(where: { $0.hasPrefix(tool + " ") })
        else {
            throw TestSupportError.commandFailed("scripts/demo printed no \(tool) command:\n\(output)")
        }
        var words: [String] = []
        var word = ""
        var quoted = false
        for character in line.dropFirst(tool.count + 1) {
            if character == "'" {
                quoted.toggle()
            } else if character == " ", !quoted {
                if !word.isEmpty { words.append(word) }
                word = ""
            } else {
                word.append(character)
            }
        }
        if !word.isEmpty { words.append(word) }
        return words
    }

    /// Runs the printed command of `tool` with `extra` arguments appended, as a user would in another
    /// terminal, and returns what it printed. `-W SECONDS` ends mosquitto_sub with status 27, which is
    /// accepted here.
    /// - Throws: `TestSupportError.commandFailed` for any other failure status.
    func runPrinted(_ tool: String, _ extra: [String] = []) async throws -> String {
        let arguments = try printedCommand(tool) + extra
        let outputURL = folder.appendingPathComponent("\(tool)-\(UUID().uuidString).txt")
        let process = try ExternalTool.launch(tool, arguments, output: outputURL)
        while process.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        let text = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 || (tool == "mosquitto_sub" && process.terminationStatus == 27) else {
            throw TestSupportError.commandFailed(
                "\(tool) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus): \(text)")
        }
        return text
    }

    /// The processes the script started, by the names of its pid files: `hap2mqtt`, `bridge`, `mosquitto`.
    var pids: [String: Int32] {
        var found: [String: Int32] = [:]
        for name in ["hap2mqtt", "bridge", "mosquitto"] {
            let file = demoDirectory.appendingPathComponent("\(name).pid")
            if let text = try? String(contentsOf: file, encoding: .utf8),
                let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                found[name] = pid
            }
        }
        return found
    }

    /// Whether a process with this pid exists (a zombie counts as gone).
    static func isRunning(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        let status = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return !(status.split(separator: ")").last?.trimmingCharacters(in: .whitespaces).hasPrefix("Z") ?? false)
    }

    /// Sends SIGINT to the script alone, as a test can (Ctrl-C in a terminal reaches its whole process
    /// group), and waits up to 60 s for it to end.
    /// - Returns: its exit status, or nil when it was still running (it is then killed).
    func interrupt() async -> Int32? {
        guard let process = state.withLock({ $0.process }), process.isRunning else {
            return state.withLock { $0.process?.terminationStatus }
        }
        kill(process.processIdentifier, SIGINT)
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                kill(process.processIdentifier, SIGKILL)
                return nil
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return process.terminationStatus
    }
}
