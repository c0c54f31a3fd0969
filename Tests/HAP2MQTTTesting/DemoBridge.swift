public import Foundation
public import HomeModel
import Synchronization

/// The demo HomeKit bridge of `scripts/demo` (`demo/demo_bridge.py`, HAP-python 5.0.0, ten accessories that
/// react to writes) as a child process for tests, on a free port of 127.0.0.1, with its two test options on:
/// `--record` (every accepted write, numbered by the HAP request it came in) and `--control` (set and read
/// values from the accessory's side).
///
/// The Python comes from `HAP2MQTT_TEST_PYTHON`, else `<repo>/.venv/bin/python`; without it `start` throws,
/// so tests fail rather than skip. `kill()` and `start()` again keep the port and the state file, so the
/// bridge comes back paired (with its accessories' starting values: the demo keeps no values). Dropping
/// the instance kills the process and removes its folder; tests still call `stop()`.
public final class DemoBridge: Sendable {
    /// The HAP port on 127.0.0.1.
    public let port: UInt16
    /// The folder with the state file, the records and `bridge.log` (what the bridge printed: one line per
    /// write, and HAP-python's log).
    public let directory: URL
    private let python: String
    private let state = Mutex<(process: Process?, run: Int, ready: Ready?)>((nil, 0, nil))

    /// What the ready file says.
    private struct Ready: Sendable {
        var setupCode: String
        var controlPort: UInt16
    }

    /// The bridge's output file.
    public var logFile: URL { directory.appendingPathComponent("bridge.log") }
    /// What the bridge printed so far (this run).
    public var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    private init(port: UInt16, python: String) throws {
        self.port = port
        self.python = python
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hap2mqtt-demo-bridge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        if let process = state.withLock({ $0.process }), process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts a fresh, unpaired demo bridge on a free loopback port and waits until it listens.
    /// - Throws: `HAPPythonAccessoryError.venvMissing` without the venv, `TestSupportError.notReady` with
    ///   the bridge's output when it does not come up within 120 s.
    public static func start() async throws -> DemoBridge {
        let bridge = try DemoBridge(port: try LoopbackListener.freePort(), python: try HAPPythonAccessory.python())
        try await bridge.start(reset: true)
        return bridge
    }

    /// Starts the bridge again on the same port with the same state file (still paired), or with `reset`
    /// unpaired; waits until it listens.
    /// - Throws: `TestSupportError.notReady` with the bridge's output when it exits or is not ready in 120 s
    ///   (counted once a `StartupSlots` slot is free).
    public func start(reset: Bool = false) async throws {
        try await withStartupSlot { try await launch(reset: reset) }
    }

    private func launch(reset: Bool) async throws {
        let run = state.withLock { s in
            s.run += 1
            s.ready = nil
            return s.run
        }
        let readyFile = directory.appendingPathComponent("ready.json")
        try? FileManager.default.removeItem(at: readyFile)
        let script = HAPPythonAccessory.repositoryRoot.appendingPathComponent("demo/demo_bridge.py").path
        var arguments = [
            "-u", script, "--port", String(port), "--state", directory.appendingPathComponent("state.json").path,
            "--ready-file", readyFile.path, "--record", recordFile(run).path, "--control", "--log-level", "INFO",
        ]
        if reset { arguments.append("--reset") }
        let process = try ExternalTool.launch(python, arguments, output: logFile)
        state.withLock { $0.process = process }
        let deadline = ContinuousClock.now + .seconds(120)
        while true {
            if let data = FileManager.default.contents(atPath: readyFile.path),
                let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
                let code = object["setup_code"] as? String,
                let control = (object["control_port"] as? NSNumber).flatMap({ UInt16(exactly: $0.intValue) })
            {
                state.withLock { $0.ready = Ready(setupCode: code, controlPort: control) }
                return
            }
            guard process.isRunning, ContinuousClock.now < deadline else {
                if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
                throw TestSupportError.notReady(
                    "the demo bridge did not get ready on port \(port):\n\(log.suffix(3000))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The setup code `hap2mqtt pair` needs (`XXX-XX-XXX`), as the running bridge reported it.
    /// - Throws: `HAPPythonAccessoryError.notRunning` before a start.
    public func setupCode() throws -> String {
        guard let ready = state.withLock({ $0.ready }) else { throw HAPPythonAccessoryError.notRunning }
        return ready.setupCode
    }

    /// Whether the process runs.
    public var isRunning: Bool { state.withLock { $0.process?.isRunning ?? false } }

    /// Stops the bridge cleanly (SIGTERM; SIGKILL after 10 s).
    public func stop() async { await end(SIGTERM) }

    /// Kills the bridge at once (SIGKILL), like pulling the plug: its connections drop without a goodbye.
    public func kill() async { await end(SIGKILL) }

    private func end(_ signal: Int32) async {
        guard
            let process = state.withLock({ s -> Process? in
                defer { s.ready = nil }
                return s.process
            }), process.isRunning
        else { return }
        Foundation.kill(process.processIdentifier, signal)
        let deadline = ContinuousClock.now + .seconds(10)
        while process.isRunning {
            if ContinuousClock.now > deadline { Foundation.kill(process.processIdentifier, SIGKILL) }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Every write request the bridge accepted, over all its runs, in order: the setter calls of one
    /// HAP request (`PUT /characteristics`) each.
    public var writeRequests: [[HAPPythonAccessory.SetterCall]] {
        let runs = state.withLock { $0.run }
        var requests: [[HAPPythonAccessory.SetterCall]] = []
        for run in 0...runs {
            guard let text = try? String(contentsOf: recordFile(run), encoding: .utf8) else { continue }
            var current: (number: Int?, calls: [HAPPythonAccessory.SetterCall]) = (nil, [])
            for line in text.split(separator: "\n") {
                guard case .set(let call, let number) = FixtureJSON.line(Array(line.utf8)) else { continue }
                if number != current.number, !current.calls.isEmpty {
                    requests.append(current.calls)
                    current.calls = []
                }
                current = (number, current.calls + [call])
            }
            if !current.calls.isEmpty { requests.append(current.calls) }
        }
        return requests
    }

    /// Waits until a write request after the first `skipping` ones satisfies `predicate`, and returns it.
    /// - Throws: `TestSupportError.timedOut` with every request recorded since.
    @discardableResult
    public func waitForRequest(
        skipping: Int = 0, timeout: Duration = .seconds(20), where predicate: ([HAPPythonAccessory.SetterCall]) -> Bool
    ) async throws -> [HAPPythonAccessory.SetterCall] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let requests = writeRequests.dropFirst(skipping)
            if let match = requests.first(where: predicate) { return match }
            guard ContinuousClock.now < deadline else {
                throw TestSupportError.timedOut(
                    "no matching write reached the demo bridge; it accepted: \(Array(requests))")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Changes a value from the accessory's side (someone at the device): subscribed controllers get an
    /// EVENT. Names are HAP-python's: `setValue(accessory: "Front Door", characteristic: "ContactSensorState", value: .int(1))`.
    public func setValue(accessory: String, characteristic: String, value: CharacteristicValue) async throws {
        _ = try await control([
            "cmd": "set_value", "accessory": accessory, "characteristic": characteristic,
            "value": FixtureJSON.object(for: value),
        ])
    }

    /// The value the accessory holds now.
    public func value(accessory: String, characteristic: String) async throws -> CharacteristicValue? {
        try await control(["cmd": "get_value", "accessory": accessory, "characteristic": characteristic]).value
    }

    private func control(_ command: [String: Any]) async throws -> FixtureJSON.Answer {
        guard let ready = state.withLock({ $0.ready }) else { throw HAPPythonAccessoryError.notRunning }
        return try await FixtureJSON.send(command, to: ready.controlPort)
    }

    private func recordFile(_ run: Int) -> URL { directory.appendingPathComponent("writes-\(run).jsonl") }
}
