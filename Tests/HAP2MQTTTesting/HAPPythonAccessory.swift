import Foundation
public import HomeModel
import Synchronization
import SystemSupport

/// A real HomeKit accessory for tests: the HAP-python 5.0.0 bridge of `Tests/Fixtures/hap_fixture.py`,
/// run as a child process on 127.0.0.1 (not advertised over mDNS unless `announced`, which only works in
/// a private network namespace, `AvahiNamespace`), with a Light, Switch, Temperature sensor, Lock,
/// Thermostat and Blind (aids 2, 3, 4, 5, 6, 8).
///
/// The Python comes from `HAP2MQTT_TEST_PYTHON`, else `<repo>/.venv/bin/python` (made by `scripts/test`);
/// when neither exists, `start` throws, so tests fail rather than skip. Each instance has its own port and
/// state file; `stop()`, `kill()` and `start()` again keep both, so a test can take the accessory away and
/// bring it back as it was (paired). Dropping the instance kills the process and removes its files; tests
/// still call `stop()` so that nothing outlives them.
public final class HAPPythonAccessory: Sendable {
    /// A write the accessory accepted (its setter ran).
    public struct SetterCall: Sendable, Hashable {
        public let accessory: String
        /// HAP-python's name of the characteristic, e.g. `Brightness`, `LockTargetState`.
        public let characteristic: String
        public let value: CharacteristicValue?
        /// Whether the write was a timed write (it carried a `pid`).
        public let timed: Bool

        /// A call with these fields, to compare with what was recorded.
        public init(accessory: String, characteristic: String, value: CharacteristicValue?, timed: Bool = false) {
            self.accessory = accessory
            self.characteristic = characteristic
            self.value = value
            self.timed = timed
        }
    }

    /// A write refused because of `failWrites`.
    public struct RejectedWrite: Sendable, Hashable {
        public let accessory: String
        public let characteristic: String
        public let value: CharacteristicValue?
        public let status: HAPStatus

        /// A refused write with these fields, to compare with what was recorded.
        public init(accessory: String, characteristic: String, value: CharacteristicValue?, status: HAPStatus) {
            self.accessory = accessory
            self.characteristic = characteristic
            self.value = value
            self.status = status
        }
    }

    /// A `PUT /prepare` the accessory received (the first step of a timed write).
    public struct PrepareRequest: Sendable, Hashable {
        public let ttl: Int
        public let pid: UInt64
    }

    /// What the accessory reports about itself.
    public struct Status: Sendable, Hashable {
        public let paired: Bool
        /// The configuration number (`c#`); it grows when accessories are added or removed.
        public let configVersion: Int
        /// The accessory server's pairing id, `XX:XX:XX:XX:XX:XX`.
        public let pairingID: String
        /// Accessory name → aid of the bridged accessories.
        public let accessories: [String: Int]
    }

    /// The kinds of accessory `addAccessory` can add.
    public enum Kind: String, Sendable {
        case light, `switch`, temperature, lock, thermostat, blind
    }

    /// Which accessories the bridge starts with.
    public enum Profile: String, Sendable {
        /// Light, Switch, Temperature, Lock, Thermostat and Blind (aids 2, 3, 4, 5, 6, 8).
        case `default`
        /// One accessory per service type Home Assistant gets a control for (`HOMEASSISTANT_ACCESSORIES`
        /// in the fixture): Lamp (brightness in steps of 5), Fan (speed in steps of 25), Air Purifier,
        /// Humidifier, Television, Camera, Blind (tilt, hold), Heater (heater-cooler), Door Lock, Remote
        /// (three buttons), Doorbell, `Garage ` (with a trailing space), Battery Sensor, Vendor Device.
        case homeAssistant = "homeassistant"
    }

    /// A snapshot the camera was asked for and sent: the size asked for, and the JPEG sent (its length
    /// and the file it came from).
    public struct SnapshotRequest: Sendable, Hashable {
        public let accessory: String
        public let width: Int
        public let height: Int
        public let bytes: Int
        public let path: String
    }

    /// The HAP port on 127.0.0.1 (another one after `startOnAnotherPort()`).
    public var port: UInt16 { currentPort.withLock { $0 } }
    private let currentPort: Mutex<UInt16>
    /// Whether it announces itself over mDNS (`_hap._tcp`).
    public let announced: Bool
    /// The setup code, `XXX-XX-XXX`.
    public let setupCode: String
    /// The directory with the state file and the fixture's log (removed when the instance goes away).
    public var directoryPath: String { directory.path }
    private let directory: URL
    private let shared: FixtureProcess
    private let python: String
    private let script: String
    private let fixedPairingID: String?
    private let lights: Int?
    private let profile: Profile
    /// A real device's accessory database served instead (`Tests/Fixtures/devices/*.json`), by path.
    private let device: String?
    private let recordsWrites: Bool

    /// The default setup code, the one HAP-python's examples use.
    public static let defaultSetupCode = "031-45-154"

    /// The repository's root folder.
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The Python with HAP-python: `HAP2MQTT_TEST_PYTHON`, else `<repo>/.venv/bin/python`.
    /// - Throws: `.venvMissing` when it does not exist.
    public static func python() throws(HAPPythonAccessoryError) -> String {
        let python =
            ProcessInfo.processInfo.environment["HAP2MQTT_TEST_PYTHON"]
            ?? repositoryRoot.appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else { throw .venvMissing(python) }
        return python
    }

    private init(
        port: UInt16, setupCode: String, pairingID: String?, lights: Int?, profile: Profile, announced: Bool,
        recordsWrites: Bool, python given: String?, device: String? = nil
    ) throws(HAPPythonAccessoryError) {
        let python: String
        if let given {
            guard FileManager.default.isExecutableFile(atPath: given) else { throw .venvMissing(given) }
            python = given
        } else {
            python = try Self.python()
        }
        let script = Self.repositoryRoot.appendingPathComponent("Tests/Fixtures/hap_fixture.py").path
        guard FileManager.default.fileExists(atPath: script) else { throw .fixtureMissing(script) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hap2mqtt-hap-python-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .startFailed("cannot create \(directory.path): \(error)")
        }
        self.currentPort = Mutex(port)
        self.announced = announced
        self.setupCode = setupCode
        self.directory = directory
        self.python = python
        self.script = script
        self.fixedPairingID = pairingID
        self.lights = lights
        self.profile = profile
        self.device = device
        self.recordsWrites = recordsWrites
        self.shared = FixtureProcess(log: directory.appendingPathComponent("fixture.log"))
    }

    deinit {
        shared.killNow()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts a fresh, unpaired accessory on a free loopback port and waits until it listens.
    /// - Parameters:
    ///   - setupCode: the code pair-setup needs.
    ///   - pairingID: a fixed pairing id instead of a random one.
    ///   - lights: the scale profile instead of the six accessories: this many colour lights `Light 1`…
    ///     `Light N` (aids 2…N+1) of 10 characteristics each (the benchmarks' large bridges).
    ///   - profile: the accessories to start with (ignored with `lights`).
    ///   - device: the path of a real device's accessory database (`Tests/Fixtures/devices/*.json`) to
    ///     serve instead, with the device's aids, iids, types, permissions, formats, values and ranges.
    ///   - python: a Python with HAP-python instead of `HAP2MQTT_TEST_PYTHON` or `<repo>/.venv`.
    ///   - announced: announce it over mDNS on 127.0.0.1 with HAP-python's own zeroconf; the fixture
    ///     refuses that outside a private network namespace with `lo` alone (`AvahiNamespace`).
    ///   - recordsWrites: false: the fixture prints no line per accepted write, and `setterCalls` stays
    ///     empty (hap2mqtt-bench's `hap`, whose CPU figures would otherwise count reading those lines).
    /// - Throws: `HAPPythonAccessoryError.venvMissing` when there is no Python with HAP-python,
    ///   `.startFailed` or `.timedOut` when the fixture does not come up.
    public static func start(
        setupCode: String = defaultSetupCode, pairingID: String? = nil, lights: Int? = nil, profile: Profile = .default,
        python: String? = nil, announced: Bool = false, recordsWrites: Bool = true, device: String? = nil
    ) async throws(HAPPythonAccessoryError) -> HAPPythonAccessory {
        var lastError = HAPPythonAccessoryError.startFailed("no attempt")
        for _ in 0..<3 {  // another process may take the free port between the check and the bind
            let port: UInt16
            do { port = try LoopbackListener.freePort() } catch { throw .startFailed("no free port: \(error)") }
            let accessory = try HAPPythonAccessory(
                port: port, setupCode: setupCode, pairingID: pairingID, lights: lights, profile: profile,
                announced: announced, recordsWrites: recordsWrites, python: python, device: device)
            do {
                try await accessory.start(reset: true)
                return accessory
            } catch .portInUse {
                lastError = .portInUse(port)
            }
        }
        throw lastError
    }

    /// Starts the accessory again on the same port with the same state file (so it is still paired with
    /// whoever paired before), or, with `reset`, unpaired and with the original accessories.
    /// - Throws: `.alreadyRunning`, `.portInUse`, `.startFailed` (with the end of the fixture's log), or
    ///   `.timedOut` after 120 s without the ready line (counted once a `StartupSlots` slot is free).
    public func start(reset: Bool = false) async throws(HAPPythonAccessoryError) {
        try await withStartupSlot { () async throws(HAPPythonAccessoryError) in try await launch(reset: reset) }
    }

    private func launch(reset: Bool) async throws(HAPPythonAccessoryError) {
        var arguments = [
            script, "--port", String(port), "--state", directory.appendingPathComponent("accessory.state").path,
            "--code", setupCode,
        ]
        if let fixedPairingID { arguments += ["--pairing-id", fixedPairingID] }
        if let lights { arguments += ["--lights", String(lights)] }
        if profile != .default { arguments += ["--profile", profile.rawValue] }
        if let device { arguments += ["--device", device] }
        if announced { arguments.append("--mdns") }
        if !recordsWrites { arguments.append("--quiet-writes") }
        if reset { arguments.append("--reset") }
        try shared.launch(python: python, arguments: arguments)
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(120))
        while clock.now < deadline {
            switch shared.startOutcome() {
            case .ready: return
            case .failed(let error):
                await shared.waitForExit(timeout: .seconds(5))
                throw error
            case .pending: try? await Task.sleep(for: .milliseconds(20))
            }
        }
        shared.killNow()
        throw .timedOut("the fixture did not report ready within 120 s\n\(shared.logTail())")
    }

    /// Starts the stopped accessory again, as it was (paired), on another free port: an accessory that came
    /// back with a new address.
    /// - Returns: the new port.
    /// - Throws: what `start(reset:)` throws.
    @discardableResult
    public func startOnAnotherPort() async throws(HAPPythonAccessoryError) -> UInt16 {
        var lastError = HAPPythonAccessoryError.startFailed("no attempt")
        for _ in 0..<3 {
            let old = port
            var next = old
            while next == old {
                do { next = try LoopbackListener.freePort() } catch { throw .startFailed("no free port: \(error)") }
            }
            currentPort.withLock { $0 = next }
            do {
                try await start()
                return next
            } catch .portInUse {
                lastError = .portInUse(next)
            }
        }
        throw lastError
    }

    /// Stops the accessory like a power-off with notice (SIGTERM; SIGKILL after 10 s). Connections close.
    public func stop() async {
        guard shared.signal(SIGTERM) else { return }
        _ = shared.signal(SIGCONT)  // a paused process handles SIGTERM only once it runs again
        if await shared.waitForExit(timeout: .seconds(10)) { return }
        _ = shared.signal(SIGKILL)
        await shared.waitForExit(timeout: .seconds(10))
    }

    /// Stops the accessory at once (SIGKILL), like pulling the plug.
    public func kill() async {
        guard shared.signal(SIGKILL) else { return }
        await shared.waitForExit(timeout: .seconds(10))
    }

    /// Freezes the process (SIGSTOP): connections stay open and new ones are accepted by the kernel, but
    /// nothing is answered, like an accessory that hangs.
    public func pause() { _ = shared.signal(SIGSTOP) }

    /// Lets a paused process go on (SIGCONT).
    public func resume() { _ = shared.signal(SIGCONT) }

    /// Whether the process is running.
    public var isRunning: Bool { shared.isRunning }

    /// The control channel's port on 127.0.0.1 (scripts/lib/hap_loopback.py) while running, for a client
    /// of its own (the benchmarks' aiohomekit script).
    public var controlPort: UInt16? { shared.controlPort }

    /// When the running process was ready (its server listening, its first announcement sent when it is
    /// `announced`): CLOCK_MONOTONIC in ns, the clock of `clock_gettime` in every process of the machine.
    public var readyNanoseconds: UInt64? { shared.readyNanoseconds }

    /// Every accepted write so far, in order.
    public var setterCalls: [SetterCall] { shared.record.setterCalls }
    /// Every write refused through `failWrites`, in order.
    public var rejectedWrites: [RejectedWrite] { shared.record.rejectedWrites }
    /// Which `PUT /characteristics` carried each of `setterCalls` (counted from 1 since the fixture
    /// started), in the same order.
    public var setterRequests: [Int?] { shared.record.setterRequests }
    /// Every `PUT /prepare` so far, in order.
    public var prepareRequests: [PrepareRequest] { shared.record.prepareRequests }
    /// Every snapshot a camera sent (`POST /resource`), in order.
    public var snapshotRequests: [SnapshotRequest] { shared.record.snapshotRequests }

    /// Waits until at least `count` setter calls have been recorded and returns them all.
    /// - Throws: `.timedOut` with what was recorded.
    public func waitForSetterCalls(count: Int, timeout: Duration = .seconds(30)) async throws(HAPPythonAccessoryError)
        -> [SetterCall]
    {
        try await waitForRecords(count: count, of: "setter calls", timeout: timeout) { $0.setterCalls }
    }

    /// Waits until at least `count` refused writes have been recorded and returns them all. The fixture
    /// prints a refusal as it answers, so its line can reach the test after the controller has the answer.
    /// - Throws: `.timedOut` with what was recorded.
    public func waitForRejectedWrites(count: Int, timeout: Duration = .seconds(30))
        async throws(HAPPythonAccessoryError) -> [RejectedWrite]
    {
        try await waitForRecords(count: count, of: "refused writes", timeout: timeout) { $0.rejectedWrites }
    }

    private func waitForRecords<Record>(
        count: Int, of what: String, timeout: Duration, _ records: (HAPPythonAccessory) -> [Record]
    ) async throws(HAPPythonAccessoryError) -> [Record] {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            let recorded = records(self)
            if recorded.count >= count { return recorded }
            guard clock.now < deadline else { throw .timedOut("\(count) \(what) expected, got \(recorded)") }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Changes a value from the accessory's side (a wall switch, a sensor reading): subscribed
    /// controllers get an EVENT.
    /// - Returns: when the fixture changed it: CLOCK_MONOTONIC in ns (the clock of `clock_gettime`, the
    ///   same in every process of the machine), taken just before the change.
    /// With `silent`, nobody gets an event: an accessory that says it sends events and does not.
    @discardableResult
    public func setValue(
        accessory: String, characteristic: String, value: CharacteristicValue, silent: Bool = false
    ) async throws(HAPPythonAccessoryError) -> UInt64? {
        try await control([
            "cmd": "set_value", "accessory": accessory, "characteristic": characteristic,
            "value": FixtureJSON.object(for: value),
            "silent": silent,
        ]).changedNanoseconds
    }

    /// The value the accessory holds now.
    public func value(accessory: String, characteristic: String) async throws(HAPPythonAccessoryError)
        -> CharacteristicValue?
    {
        try await control(["cmd": "get_value", "accessory": accessory, "characteristic": characteristic]).value
    }

    /// Makes writes to one characteristic fail with `status` (e.g. -70410, -70402) without changing the
    /// value, or, with `applied`, after storing it (as HAP-python does when a setter raises); nil accepts
    /// writes again.
    public func failWrites(
        accessory: String, characteristic: String, status: HAPStatus?, applied: Bool = false
    ) async throws(HAPPythonAccessoryError) {
        _ = try await control([
            "cmd": "fail_writes", "accessory": accessory, "characteristic": characteristic,
            "status": status.map { $0.rawValue } as Any, "applied": applied,
        ])
    }

    /// Removes a bridged accessory now and for later starts; the configuration number grows.
    @discardableResult
    public func removeAccessory(_ name: String) async throws(HAPPythonAccessoryError) -> Status {
        try await control(["cmd": "remove_accessory", "accessory": name]).status()
    }

    /// Adds a bridged accessory now and for later starts; the configuration number grows.
    @discardableResult
    public func addAccessory(_ name: String, kind: Kind) async throws(HAPPythonAccessoryError) -> Status {
        try await control(["cmd": "add_accessory", "accessory": name, "kind": kind.rawValue]).status()
    }

    /// Forgets every paired controller and drops their connections, as a factory reset does.
    public func resetPairings() async throws(HAPPythonAccessoryError) {
        _ = try await control(["cmd": "reset_pairings"])
    }

    /// Makes every paired controller an admin (`true`) or a regular user (`false`), as another admin
    /// could with Add Pairing; the accessory then answers `/pairings` requests by its own check.
    public func setAdmin(_ admin: Bool) async throws(HAPPythonAccessoryError) {
        _ = try await control(["cmd": "set_admin", "admin": admin])
    }

    /// Drops every connection; pairings stay (an accessory that closes idle connections).
    public func disconnectClients() async throws(HAPPythonAccessoryError) {
        _ = try await control(["cmd": "disconnect_clients"])
    }

    /// A command that does nothing: the control channel's own cost (hap2mqtt-bench subtracts it from the
    /// CPU time of its events, which each need a `setValue`).
    public func ping() async throws(HAPPythonAccessoryError) {
        _ = try await control(["cmd": "ping"])
    }

    /// Makes the accessory change one integer characteristic as fast as it can for `seconds` (through its
    /// range and round again, ending at its maximum), each change an event to subscribed controllers, as
    /// an accessory flooding events would; returns at once. `seconds` 0 stops a flood under way.
    public func floodEvents(accessory: String, characteristic: String, seconds: Double)
        async throws(HAPPythonAccessoryError)
    {
        _ = try await control([
            "cmd": "flood_events", "accessory": accessory, "characteristic": characteristic, "seconds": seconds,
        ])
    }

    /// How many changes the last flood made, and whether it still runs.
    public func floodStatus() async throws(HAPPythonAccessoryError) -> (events: Int, running: Bool) {
        let answer = try await control(["cmd": "flood_status"])
        return (answer.events ?? 0, answer.running ?? false)
    }

    /// What the accessory did wrong so far (`misbehave(…)`).
    public struct Misbehaviour: Sendable, Hashable {
        /// Reads answered `-70407` for having more characteristics than the limit.
        public var refusedReads: Int
        /// Connections closed for being quiet.
        public var idleCloses: Int
        /// The most characteristics one answered read asked for.
        public var largestRead: Int
    }

    /// Makes the accessory misbehave as real ones do; each argument given replaces its setting:
    /// `silentEvents` (accessory, characteristic) never send events (their subscriptions are accepted);
    /// `readLimit`: reads of more characteristics are answered `-70407` (out of resources) for each, `.some(nil)`
    /// turns it off; `idleClose`: connections quiet that long are closed, `.some(nil)` turns it off.
    @discardableResult
    public func misbehave(
        silentEvents: [(accessory: String, characteristic: String)]? = nil, readLimit: Int?? = nil,
        idleClose: Duration?? = nil
    ) async throws(HAPPythonAccessoryError) -> Misbehaviour {
        var command: [String: Any] = ["cmd": "misbehave"]
        if let silentEvents { command["silent_events"] = silentEvents.map { [$0.accessory, $0.characteristic] } }
        if let readLimit { command["read_limit"] = readLimit.map { $0 as Any } ?? NSNull() }
        if let idleClose { command["idle_close"] = idleClose.map { $0.inSeconds as Any } ?? NSNull() }
        return try await misbehaviourAnswer(command)
    }

    /// What the accessory did wrong so far.
    public func misbehaviour() async throws(HAPPythonAccessoryError) -> Misbehaviour {
        try await misbehaviourAnswer(["cmd": "misbehaviour"])
    }

    private func misbehaviourAnswer(_ command: [String: Any]) async throws(HAPPythonAccessoryError) -> Misbehaviour {
        guard let counts = try await control(command).misbehaviour else {
            throw .control("the answer carries no counts")
        }
        return counts
    }

    /// Paired or not, configuration number, pairing id and accessories.
    public func status() async throws(HAPPythonAccessoryError) -> Status {
        try await control(["cmd": "status"]).status()
    }

    /// Sends one command over the control channel and reads its answer.
    private func control(_ command: [String: Any]) async throws(HAPPythonAccessoryError) -> FixtureJSON.Answer {
        guard let controlPort = shared.controlPort else { throw .notRunning }
        return try await FixtureJSON.send(command, to: controlPort)
    }
}

/// Why the HAP-python fixture could not be used. Prints as one line (plus the fixture's log where it helps).
public enum HAPPythonAccessoryError: Error, Sendable, CustomStringConvertible {
    case venvMissing(String)
    case fixtureMissing(String)
    case alreadyRunning
    case notRunning
    case portInUse(UInt16)
    case startFailed(String)
    case timedOut(String)
    /// The fixture refused a control command.
    case control(String)

    public var description: String {
        switch self {
        case .venvMissing(let path):
            return
                "HAP-python venv not found: run scripts/test, which creates it (no Python at \(path); or set HAP2MQTT_TEST_PYTHON)"
        case .fixtureMissing(let path): return "the HAP-python fixture is missing: \(path)"
        case .alreadyRunning: return "the HAP-python fixture is already running"
        case .notRunning: return "the HAP-python fixture is not running"
        case .portInUse(let port): return "port \(port) is in use"
        case .startFailed(let why): return "the HAP-python fixture did not start: \(why)"
        case .timedOut(let what): return "timed out: \(what)"
        case .control(let why): return "the HAP-python fixture refused the command: \(why)"
        }
    }
}
