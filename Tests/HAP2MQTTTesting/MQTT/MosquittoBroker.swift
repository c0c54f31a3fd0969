public import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A real mosquitto broker for tests, on a free port of 127.0.0.1, in its own temporary folder, with
/// persistence only when `Options.persistent` asks for it. It is stopped by `stop()`/`kill()` or, as a last resort, when it is deallocated.
///
/// ```swift
/// let broker = try await MosquittoBroker()
/// let client = try await MQTTTestClient.connect(to: broker)
/// ```
public final class MosquittoBroker: Sendable {
    /// What the broker is set up with besides the plain listener.
    public struct Options: Sendable {
        /// User names and passwords (written with `mosquitto_passwd -b`). When not empty, anonymous
        /// clients are refused.
        public var users: [String: String]
        /// A second listener with TLS, on `tlsPort`, serving this certificate.
        public var tls: TestServerCertificate?
        /// More lines for `mosquitto.conf`, as written.
        public var extraConfiguration: [String]
        /// Keeps retained messages, sessions and their queued messages across `restart()`, in a file of
        /// the broker's own temporary folder (written when it stops).
        public var persistent: Bool

        /// Options; the defaults give an anonymous broker with one plain listener.
        public init(
            users: [String: String] = [:], tls: TestServerCertificate? = nil, extraConfiguration: [String] = [],
            persistent: Bool = false
        ) {
            self.users = users
            self.persistent = persistent
            self.tls = tls
            self.extraConfiguration = extraConfiguration
        }
    }

    /// The plain MQTT port on 127.0.0.1.
    public var port: Int { listenPorts.withLock { $0.plain } }
    /// The TLS port on 127.0.0.1, when `Options.tls` was given.
    public var tlsPort: Int? { listenPorts.withLock { $0.tls } }
    /// Chosen again when another process took a port first.
    private let listenPorts = Mutex<(plain: Int, tls: Int?)>((0, nil))
    /// The broker's folder: `mosquitto.conf`, `mosquitto.log`, the password file.
    public let directory: URL
    private let executable: String
    private let process = Mutex<Process?>(nil)

    /// `mqtt://127.0.0.1:<port>`.
    public var url: String { "mqtt://127.0.0.1:\(port)" }
    /// `mqtts://127.0.0.1:<tlsPort>`, when the broker has a TLS listener.
    public var tlsURL: String? { tlsPort.map { "mqtts://127.0.0.1:\($0)" } }

    /// Writes the configuration and starts the broker; returns when its ports accept connections.
    /// - Throws: `TestSupportError.toolMissing` when mosquitto is not installed, `.notReady` with the
    ///   broker's log when it does not start listening within 30 s (a busy machine can take seconds).
    public init(options: Options = Options()) async throws {
        executable = try ExternalTool.require("mosquitto")
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("mosquitto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // A port found free can be taken by another test's server before mosquitto binds it; then
        // mosquitto exits with "Address already in use" and another pair of ports is tried.
        var attempt = 1
        while true {
            let chosen = (
                plain: try LoopbackSocket.freePort(), tls: options.tls == nil ? nil : try LoopbackSocket.freePort()
            )
            listenPorts.withLock { $0 = chosen }
            try await writeConfiguration(options)
            do {
                try await start()
                return
            } catch TestSupportError.notReady(let why) where why.contains("Address already in use") && attempt < 5 {
                attempt += 1
            }
        }
    }

    deinit {
        if let process = process.withLock({ $0 }), process.isRunning {
            sendSignal(process.processIdentifier, SIGKILL)
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// The broker's log file: one line per connection ("New client connected from … as <client id>"),
    /// disconnection and error, written as they happen.
    public var logFile: URL { directory.appendingPathComponent("mosquitto.log") }

    /// The broker's log so far, for failure messages.
    public var log: String {
        (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
    }

    /// True while the broker process runs.
    public var isRunning: Bool { process.withLock { $0?.isRunning ?? false } }

    /// Stops the broker with SIGTERM (clients see their connection close) and waits for it to exit.
    public func stop() async {
        await end(signal: SIGTERM)
    }

    /// Kills the broker with SIGKILL and waits for it to exit.
    public func kill() async {
        await end(signal: SIGKILL)
    }

    /// Stops the broker if it runs and starts it again on the same ports. Without `Options.persistent`,
    /// retained messages and sessions are gone.
    /// - Throws: as `init`.
    public func restart() async throws {
        await stop()
        try await start()
    }

    private func start() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-c", directory.appendingPathComponent("mosquitto.conf").path]
        let outputURL = directory.appendingPathComponent("mosquitto.out")
        if !FileManager.default.fileExists(atPath: outputURL.path) {
            TestFile.create(outputURL.path)
        }
        let output = try FileHandle(forWritingTo: outputURL)
        output.seekToEndOfFile()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        let logStart = log.utf8.count
        try ExternalTool.start(process)
        try? output.close()
        self.process.withLock { $0 = process }
        let ports = [port] + (tlsPort.map { [$0] } ?? [])
        let deadline = ContinuousClock.now + .seconds(30)
        // Another process may listen on the port; only this broker's own log line proves it is ours.
        func listensItself() -> Bool {
            let fresh = String(decoding: log.utf8.dropFirst(logStart), as: UTF8.self)
            return ports.allSatisfy { fresh.contains("listen socket on port \($0).") }
                && ports.allSatisfy { LoopbackSocket.acceptsConnections(port: $0) }
        }
        while !listensItself() {
            let output = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
            guard process.isRunning else {
                throw TestSupportError.notReady("mosquitto exited with \(process.terminationStatus): \(output)\(log)")
            }
            guard ContinuousClock.now < deadline else {
                await end(signal: SIGKILL)
                throw TestSupportError.notReady("mosquitto does not listen on \(ports) after 30 s: \(output)\(log)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    private func end(signal: Int32) async {
        guard let process = process.withLock({ $0 }), process.isRunning else { return }
        sendSignal(process.processIdentifier, signal)
        let deadline = ContinuousClock.now + .seconds(5)
        while process.isRunning {
            if ContinuousClock.now > deadline { sendSignal(process.processIdentifier, SIGKILL) }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    private func writeConfiguration(_ options: Options) async throws {
        var lines = [
            // Started as root, mosquitto would switch to the `mosquitto` user, which cannot write the log
            // in our folder; as anyone else this line changes nothing.
            "user \(Self.currentUserName)",
            "listener \(port) 127.0.0.1",
            options.persistent ? "persistence true" : "persistence false",
            "log_dest file \(logFile.path)",
            "log_type error",
            "log_type warning",
            "log_type notice",
            "log_type information",
            "connection_messages true",
            // Integration tests publish thousands of QoS 1 messages to slow subscribers.
            "max_queued_messages 100000",
        ]
        if options.users.isEmpty {
            lines.append("allow_anonymous true")
        } else {
            let passwordFile = directory.appendingPathComponent("passwords").path
            for (index, (user, password)) in options.users.sorted(by: { $0.key < $1.key }).enumerated() {
                try await ExternalTool.run(
                    "mosquitto_passwd", (index == 0 ? ["-c"] : []) + ["-b", passwordFile, user, password])
            }
            lines += ["allow_anonymous false", "password_file \(passwordFile)"]
        }
        if let tls = options.tls, let tlsPort {
            lines += [
                "listener \(tlsPort) 127.0.0.1", "cafile \(tls.caFile)", "certfile \(tls.certFile)",
                "keyfile \(tls.keyFile)",
            ]
        }
        if options.persistent {
            lines.append("persistence_location \(directory.path)/")
        }
        lines += options.extraConfiguration
        try TestFile.write(lines.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("mosquitto.conf"))
    }
}

extension MosquittoBroker {
    static var currentUserName: String {
        guard let entry = getpwuid(getuid()), let name = entry.pointee.pw_name else { return "root" }
        return String(cString: name)
    }
}

/// `kill(2)`, which the method named `kill` hides.
private func sendSignal(_ pid: Int32, _ signal: Int32) {
    _ = kill(pid, signal)
}
