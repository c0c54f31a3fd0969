public import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The real `hap2mqtt` binary running `run` as a child process, for whole-program tests: its own
/// configuration file and state directory in a temporary folder, its log (standard error) in a file.
public final class GatewayProcess: Sendable {
    /// The temporary folder with `hap2mqtt.yaml`, `data/` and `hap2mqtt.log`.
    public let directory: URL
    /// The configuration file the process reads.
    public var configurationFile: URL { directory.appendingPathComponent("hap2mqtt.yaml") }
    /// The state directory (`homekit.state_dir`).
    public var stateDirectory: URL { directory.appendingPathComponent("data") }
    /// Everything the process wrote to standard error and standard output.
    public var logFile: URL { directory.appendingPathComponent("hap2mqtt.log") }
    /// The `mqtt.client_id` its configuration gives it.
    public let clientID: String
    private let process = Mutex<Process?>(nil)
    private let environment: [String: String]

    /// Writes a configuration that points at `brokerURL` (plus `extraYAML`, more top-level sections or
    /// keys) into a fresh folder. Nothing runs until `start()`. Outside a private network namespace,
    /// DNS-SD discovery is off unless `environment` says otherwise (`AvahiNamespace.gatewayEnvironment`).
    /// - Parameters:
    ///   - logLevel: `log_level`; tests read the debug lines, benchmarks run at the default `info`.
    ///   - homekit: more keys of the `homekit` section (`["catchup_interval": "1"]`).
    public init(
        brokerURL: String, baseTopic: String = "hap2mqtt", extraYAML: String = "", environment: [String: String] = [:],
        logLevel: String = "debug", homekit: [String: String] = [:]
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hap2mqtt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        clientID = "hap2mqtt-\(UUID().uuidString.prefix(8))"
        // Per-entity discovery configs, which these tests read, unless `environment` names a format: a new
        // installation would publish device-based ones (the Home Assistant suites choose theirs by version).
        self.environment = AvahiNamespace.gatewayEnvironment.merging(
            ["HAP2MQTT_HOMEASSISTANT_DISCOVERY_FORMAT": "entity"].merging(environment) { _, given in given }
        ) { _, given in given }
        let yaml = """
            mqtt:
              url: \(brokerURL)
              base_topic: \(baseTopic)
              client_id: \(clientID)
            homekit:
              state_dir: \(directory.appendingPathComponent("data").path)
            \(homekit.sorted { $0.key < $1.key }.map { "  \($0.key): \($0.value)\n" }.joined())
            log_level: \(logLevel)
            \(extraYAML)
            \(extraYAML.contains("frontend:") ? "" : Self.noWebPage)
            """
        try TestFile.write(yaml, to: configurationFile)
    }

    /// The web page is on by default on port 8780, which gateways running side by side would all want:
    /// off unless `extraYAML` has a `frontend` section of its own.
    static let noWebPage = "frontend:\n  enabled: false"

    deinit {
        if let process = process.withLock({ $0 }), process.isRunning {
            _ = Glibc.kill(process.processIdentifier, SIGKILL)
        }
    }

    /// The built binary: beside the test bundle (`.build/<triple>/debug/hap2mqtt`).
    /// - Throws: `TestSupportError.toolMissing` when it is not there.
    public static func binary() throws -> URL {
        var directories = [Bundle.main.executableURL, URL(fileURLWithPath: CommandLine.arguments[0])]
            .compactMap { $0?.deletingLastPathComponent() }
        directories += Bundle.allBundles.map(\.bundleURL).filter { $0.pathExtension == "xctest" }
            .map { $0.deletingLastPathComponent() }
        for directory in directories {
            let candidate = directory.appendingPathComponent("hap2mqtt")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw TestSupportError.toolMissing(
            "the hap2mqtt binary is not beside the tests (looked in \(directories.map(\.path))); run scripts/test, which builds it"
        )
    }

    /// Runs `hap2mqtt <arguments> --config <file>` (default `run`); returns at once.
    public func start(_ arguments: [String] = ["run"]) throws {
        let p = try launch(arguments, output: logFile)
        process.withLock { $0 = p }
    }

    /// Starts `hap2mqtt <arguments> --config <file>` in the folder, its output appended to `output`.
    private func launch(_ arguments: [String], output: URL) throws -> Process {
        let p = Process()
        p.executableURL = try GatewayProcess.binary()
        p.arguments = arguments + ["--config", configurationFile.path]
        p.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HAP2MQTT_") }
            .merging(environment) { _, new in new }
        p.currentDirectoryURL = directory
        if !FileManager.default.fileExists(atPath: output.path) {
            TestFile.create(output.path)
        }
        let handle = try FileHandle(forWritingTo: output)
        handle.seekToEndOfFile()
        p.standardOutput = handle
        p.standardError = handle
        p.standardInput = FileHandle.nullDevice
        try ExternalTool.start(p)
        try? handle.close()
        return p
    }

    /// Runs another `hap2mqtt <arguments> --config <file>` beside the running one (`pair`, `unpair`, …), in
    /// the same folder, and waits for it to end.
    /// - Returns: its exit status and everything it wrote to standard output and standard error.
    /// - Throws: `TestSupportError.timedOut` when it has not ended within `timeout` (it is killed).
    public func runCommand(_ arguments: [String], timeout: Duration = .seconds(30)) async throws -> (
        status: Int32, output: String
    ) {
        let output = directory.appendingPathComponent("command-\(UUID().uuidString.prefix(8)).log")
        let p = try launch(arguments, output: output)
        let deadline = ContinuousClock.now + timeout
        while p.isRunning {
            if ContinuousClock.now > deadline {
                _ = Glibc.kill(p.processIdentifier, SIGKILL)
                throw TestSupportError.timedOut(
                    "hap2mqtt \(arguments.joined(separator: " ")) did not end within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return (p.terminationStatus, (try? String(contentsOf: output, encoding: .utf8)) ?? "")
    }

    /// Whether the process is running.
    public var isRunning: Bool { process.withLock { $0?.isRunning ?? false } }

    /// The process id while it runs (to read `/proc/<pid>/status`, for example).
    public var processIdentifier: Int32? {
        process.withLock { p in p.flatMap { $0.isRunning ? $0.processIdentifier : nil } }
    }

    /// The exit status, once it has exited.
    public var terminationStatus: Int32? {
        process.withLock { p in p.flatMap { $0.isRunning ? nil : $0.terminationStatus } }
    }

    /// What the process logged so far.
    public var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// Sends SIGTERM and waits up to 10 s for a clean exit (then SIGKILL).
    public func stop() async { await end(SIGTERM) }

    /// Sends SIGINT, as Ctrl-C does, and waits for the exit.
    public func interrupt() async { await end(SIGINT) }

    /// Kills the process with SIGKILL: no clean shutdown, so the broker fires the last will.
    public func kill() async { await end(SIGKILL) }

    private func end(_ signal: Int32) async {
        guard let p = process.withLock({ $0 }), p.isRunning else { return }
        _ = Glibc.kill(p.processIdentifier, signal)
        let deadline = ContinuousClock.now + .seconds(10)
        while p.isRunning {
            if ContinuousClock.now > deadline { _ = Glibc.kill(p.processIdentifier, SIGKILL) }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
