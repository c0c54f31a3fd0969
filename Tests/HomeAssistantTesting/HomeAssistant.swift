public import Foundation
import HAP2MQTTTesting
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A real Home Assistant core (`HomeAssistantVersion`: 2024.3.3 from the `.venv-ha` venv, or 2026.11.0 from
/// the Debian unstable chroot, both made by `scripts/test`) for tests, on a free port of 127.0.0.1, with its
/// MQTT integration configured offline for a test broker.
///
/// `start` prepares a fresh configuration directory (`Tests/Fixtures/homeassistant/prepare_config.py`:
/// HTTP on loopback, the MQTT config entry with discovery on, onboarding done, an owner with a long-lived
/// token), runs `hass --skip-pip` (through `run_homeassistant.py`, which unblocks SIGTERM and, where it
/// can, gives Home Assistant a network namespace of its own: `canIsolate`), and returns once Home Assistant is RUNNING with the MQTT entry loaded
/// and has published its birth message. The REST client methods use the token. `stop()` ends the process
/// and removes the directory; tests call it, and dropping the instance kills the process as a last resort.
///
/// The Python comes from the version's variable (`HomeAssistantVersion.python()`); when it does not exist
/// `start` throws ("… not found … HAP2MQTT_TEST_HA=1 scripts/test --filter <the test> makes it and runs it"),
/// so tests fail rather than skip. `scripts/test` makes both versions without being asked when it runs
/// every test, or a suite its HOMEASSISTANT_SUITES names.
public final class HomeAssistant: Sendable {
    /// The release that runs.
    public let version: HomeAssistantVersion
    /// The HTTP port on 127.0.0.1.
    public let port: Int
    /// The long-lived access token of the owner.
    public let token: String
    /// The configuration directory (with `home-assistant.log`).
    public let directory: URL
    /// The status topic Home Assistant publishes `online`/`offline` on.
    public let statusTopic = "homeassistant/status"
    /// Whether it runs in a private network namespace (see `canIsolate`).
    public let isIsolated: Bool
    private let process: Mutex<Process?>
    /// The Python and the arguments that run it, kept for `restart`.
    private let python: String
    private let command: [String]
    private let brokerPort: Int

    /// `http://127.0.0.1:<port>`.
    public var url: String { "http://127.0.0.1:\(port)" }
    /// Home Assistant's log file.
    public var logFile: URL { directory.appendingPathComponent("home-assistant.log") }

    private init(
        version: HomeAssistantVersion, port: Int, token: String, directory: URL, process: Process, isolated: Bool,
        python: String, command: [String], brokerPort: Int
    ) {
        self.version = version
        self.python = python
        self.command = command
        self.brokerPort = brokerPort
        self.isIsolated = isolated
        self.port = port
        self.token = token
        self.directory = directory
        self.process = Mutex(process)
    }

    deinit {
        if let process = process.withLock({ $0 }), process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// The fixture folder with `prepare_config.py` and `requirements.txt`.
    static var fixtureFolder: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/homeassistant")
    }

    /// Whether `unshare --net` works here (Linux, as root or with user namespaces). Then Home Assistant
    /// runs in a network namespace of its own with nothing but loopback, joined to the host's loopback
    /// by two relays (the broker's port, and its HTTP port), so it cannot send a packet anywhere else:
    /// its `network` integration, for one, probes a public address. Elsewhere it binds 127.0.0.1 only.
    public static let canIsolate: Bool = {
        guard let unshare = ExternalTool.find("unshare") else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: unshare)
        process.arguments = ["--net", "true"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    /// Starts Home Assistant for the broker on 127.0.0.1:`brokerPort`, in a private network namespace
    /// when `canIsolate`.
    /// - Parameters:
    ///   - version: the release to run (`HomeAssistantVersion.current`, from `HAP2MQTT_TEST_HA_VERSION`).
    ///   - discoveryPrefix: the MQTT discovery prefix it listens on.
    ///   - timeout: how long to wait for RUNNING, the MQTT entry and the birth message.
    /// - Throws: `TestSupportError.toolMissing` without the venv, `.commandFailed` when the configuration
    ///   cannot be prepared, `.notReady` with the end of its log when it does not come up in time (counted
    ///   once a `StartupSlots` slot is free).
    public static func start(
        version: HomeAssistantVersion = .current, brokerPort: Int, discoveryPrefix: String = "homeassistant",
        timeout: Duration = .seconds(180)
    ) async throws -> HomeAssistant {
        try await withStartupSlot {
            try await launch(
                version: version, brokerPort: brokerPort, discoveryPrefix: discoveryPrefix, timeout: timeout)
        }
    }

    private static func launch(
        version: HomeAssistantVersion, brokerPort: Int, discoveryPrefix: String, timeout: Duration
    ) async throws -> HomeAssistant {
        let python = try version.python()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hap2mqtt-homeassistant-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let port = try LoopbackSocket.freePort()
        let script = fixtureFolder.appendingPathComponent("prepare_config.py").path
        let output = try await ExternalTool.run(
            python, [script, directory.path, String(port), String(brokerPort), discoveryPrefix])
        guard let token = output.split(separator: "\n").last.map(String.init), token.hasPrefix("ey") else {
            throw TestSupportError.commandFailed("prepare_config.py printed no token: \(output)")
        }
        let birth = try await MQTTTestClient.connect(
            to: "mqtt://127.0.0.1:\(brokerPort)", subscribe: ["homeassistant/status"])
        let runner = fixtureFolder.appendingPathComponent("run_homeassistant.py").path
        let isolation = canIsolate ? ["--isolate", String(brokerPort), String(port), directory.path] : []
        let hass = [
            "-c", directory.path, "--skip-pip", "--log-file",
            directory.appendingPathComponent("home-assistant.log").path,
        ]
        let command = [runner] + isolation + ["--"] + hass
        let process = try ExternalTool.launch(python, command, output: directory.appendingPathComponent("hass.out"))
        let instance = HomeAssistant(
            version: version, port: port, token: token, directory: directory, process: process, isolated: canIsolate,
            python: python, command: command, brokerPort: brokerPort)
        do {
            try await instance.waitUntilReady(birth: birth, timeout: timeout)
            await birth.disconnect()
            return instance
        } catch {
            await birth.disconnect()
            await instance.stop()
            throw error
        }
    }

    private func waitUntilReady(birth: MQTTTestClient, timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let config = try? await getJSON("/api/config"), case .string("RUNNING")? = config["state"],
                config["components"]?.strings?.contains("mqtt") == true
            {
                break
            }
            try checkAlive(deadline: deadline, waitingFor: "RUNNING with MQTT loaded")
            try await Task.sleep(for: .milliseconds(200))
        }
        let remaining = deadline - ContinuousClock.now
        guard
            await birth.firstMessage(
                on: statusTopic, within: max(remaining, .seconds(1)), where: { $0.payloadString == "online" }) != nil
        else {
            throw TestSupportError.notReady(
                "Home Assistant did not publish its birth message on \(statusTopic): \(logTail())")
        }
    }

    private func checkAlive(deadline: ContinuousClock.Instant, waitingFor what: String) throws {
        let running = process.withLock { $0?.isRunning ?? false }
        guard running else {
            throw TestSupportError.notReady("Home Assistant exited before it was \(what): \(logTail())")
        }
        guard ContinuousClock.now < deadline else {
            throw TestSupportError.notReady("Home Assistant was not \(what) in time: \(logTail())")
        }
    }

    /// Stops Home Assistant (SIGTERM, SIGKILL after 20 s) and removes its directory.
    public func stop() async {
        guard
            let process = process.withLock({ p -> Process? in
                defer { p = nil }
                return p
            })
        else { return }
        await Self.terminate(process)
        try? FileManager.default.removeItem(at: directory)
    }

    /// Restarts Home Assistant as a user would: it stops (SIGTERM, so it saves its registries and
    /// publishes `offline`), starts again on the same configuration directory and port, and this returns
    /// once it is RUNNING with MQTT loaded and has published its birth message again.
    /// - Throws: `TestSupportError.notReady` with the end of its log when it does not come back in time.
    /// - Parameter whileStopped: runs once Home Assistant has exited, before it starts again.
    public func restart(timeout: Duration = .seconds(180), whileStopped: () async throws -> Void = {}) async throws {
        if let old = process.withLock({ $0 }) { await Self.terminate(old) }
        try await whileStopped()
        let birth = try await MQTTTestClient.connect(
            to: "mqtt://127.0.0.1:\(brokerPort)", subscribe: [statusTopic])
        do {
            let fresh = try ExternalTool.launch(python, command, output: directory.appendingPathComponent("hass.out"))
            process.withLock { $0 = fresh }
            try await waitUntilReady(birth: birth, timeout: timeout)
            await birth.disconnect()
        } catch {
            await birth.disconnect()
            throw error
        }
    }

    private static func terminate(_ process: Process) async {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        let deadline = ContinuousClock.now + .seconds(20)
        while process.isRunning {
            if ContinuousClock.now > deadline { kill(process.processIdentifier, SIGKILL) }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The end of Home Assistant's log, for failure messages.
    public func logTail(_ characters: Int = 4000) -> String {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        let out = (try? String(contentsOf: directory.appendingPathComponent("hass.out"), encoding: .utf8)) ?? ""
        return String((text + out).suffix(characters))
    }
}
