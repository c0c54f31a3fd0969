public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finding and running the command-line tools the tests use (mosquitto, mosquitto_passwd, openssl).
public enum ExternalTool {
    /// The folders searched besides `PATH`: `mosquitto` lives in `/usr/sbin` on Debian, which is not on
    /// every user's `PATH`.
    static let extraFolders = [
        "/usr/sbin", "/usr/local/sbin", "/usr/local/bin", "/opt/homebrew/sbin", "/opt/homebrew/bin",
    ]

    /// The path of an executable called `name` (or at the path `name`, when it holds a `/`), or nil.
    public static func find(_ name: String) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").map(String.init) ?? []
        return (path + extraFolders)
            .map { URL(fileURLWithPath: $0).appendingPathComponent(name).path }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The path of an executable called `name`.
    /// - Throws: `TestSupportError.toolMissing` ("mosquitto not found: run scripts/test, which installs it").
    public static func require(_ name: String) throws -> String {
        guard let path = find(name) else {
            throw TestSupportError.toolMissing("\(name) not found: run scripts/test, which installs it")
        }
        return path
    }

    /// Runs `name` (found with `require`) to completion and returns what it wrote to stdout and stderr.
    /// - Throws: `TestSupportError.toolMissing`, or `.commandFailed` with the output on a non-zero exit.
    @discardableResult
    public static func run(_ name: String, _ arguments: [String], in directory: URL? = nil) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try require(name))
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        // A file rather than a pipe: a chatty tool cannot block on a full pipe nobody reads yet.
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString).out")
        TestFile.create(outputURL.path)
        defer { try? FileManager.default.removeItem(at: outputURL) }
        let output = try FileHandle(forWritingTo: outputURL)
        defer { try? output.close() }
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in continuation.resume() }
            do {
                try start(process)
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        let text = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            throw TestSupportError.commandFailed(
                "\(name) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus): \(text)")
        }
        return text
    }
}

extension ExternalTool {
    /// Starts `name` in the background with stdout and stderr going to `output`; the caller stops it.
    /// - Throws: `TestSupportError.toolMissing`, or Foundation's error when it cannot start.
    public static func launch(_ name: String, _ arguments: [String], output: URL) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try require(name))
        process.arguments = arguments
        TestFile.create(output.path)
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try start(process)
        try? handle.close()
        return process
    }

    /// Starts `process` with no signal blocked. A child inherits the signal mask of the thread that
    /// spawns it, and Dispatch's worker threads block SIGTERM, SIGINT and SIGHUP: started from a task,
    /// a broker would ignore the SIGTERM of `MosquittoBroker.stop()`.
    public static func start(_ process: Process) throws {
        var everything = sigset_t()
        var previous = sigset_t()
        sigemptyset(&everything)
        pthread_sigmask(SIG_SETMASK, &everything, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        try process.run()
    }

    /// Waits until `file` contains `text` (a child's "ready" line), up to `timeout`.
    /// - Throws: `TestSupportError.timedOut` with what the file does contain.
    public static func waitFor(_ text: String, in file: URL, timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let content = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            if content.contains(text) { return }
            guard ContinuousClock.now < deadline else {
                throw TestSupportError.timedOut("\"\(text)\" did not appear in \(file.lastPathComponent): \(content)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
