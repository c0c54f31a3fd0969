import Foundation
import Synchronization
import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A real browser for tests of the web page: Debian's headless chromium, driven by Selenium through
/// `Tests/Fixtures/browser/browser_driver.py` (one JSON command a line; the driver answers each). It opens
/// only the loopback URLs a test gives.
///
/// The Python comes from `HAP2MQTT_TEST_BROWSER_PYTHON`, else `<repo>/.venv-browser/bin/python` (made by
/// `scripts/test`); without it, or without chromium, `start` throws, so tests fail rather than skip.
public final class Browser: Sendable {
    private let process: Process
    private let input: FileHandle
    private let output: Int32
    private let buffer = Mutex<[UInt8]>([])
    private let log: URL

    /// Starts chromium and waits until it is ready.
    public static func start() async throws -> Browser {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let python =
            ProcessInfo.processInfo.environment["HAP2MQTT_TEST_BROWSER_PYTHON"]
            ?? root.appendingPathComponent(".venv-browser/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw TestSupportError.toolMissing(
                "no Python with Selenium at \(python); run scripts/test, which makes .venv-browser")
        }
        for tool in ["/usr/bin/chromium", "/usr/bin/chromedriver"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            throw TestSupportError.toolMissing(
                "\(tool) is missing; run scripts/test, which installs chromium and chromium-driver")
        }
        let browser = try Browser(
            python: python, script: root.appendingPathComponent("Tests/Fixtures/browser/browser_driver.py").path)
        let ready = try await browser.answer(timeout: .seconds(120))
        guard ready["ready"] as? Bool == true else {
            throw TestSupportError.notReady("the browser did not start: \(ready)")
        }
        return browser
    }

    private init(python: String, script: String) throws {
        let stdin = Pipe()
        let stdout = Pipe()
        log = FileManager.default.temporaryDirectory.appendingPathComponent("hap2mqtt-browser-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script]
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        input = stdin.fileHandleForWriting
        output = stdout.fileHandleForReading.fileDescriptor
    }

    deinit {
        if process.isRunning { _ = kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: log)
    }

    /// Sends one command (`cmd` and its fields, see the driver) and returns the driver's answer.
    /// - Throws: `TestSupportError.commandFailed` with the driver's error (what the page showed instead).
    @discardableResult
    public func run(_ command: [String: Any], timeout: Duration = .seconds(60)) async throws -> [String: Any] {
        let line = try JSONSerialization.data(withJSONObject: command) + Data("\n".utf8)
        try input.write(contentsOf: line)
        let answer = try await self.answer(timeout: timeout)
        guard answer["ok"] as? Bool == true else {
            throw TestSupportError.commandFailed("browser \(command["cmd"] ?? ""): \(answer["error"] ?? answer)")
        }
        return answer
    }

    /// Opens `url` in a window of `width` × `height` pixels.
    public func open(_ url: String, width: Int = 1280, height: Int = 900) async throws {
        try await run(["cmd": "open", "url": url, "width": width, "height": height])
    }

    /// Waits until an element matching `css` shows (with `text` in it, when given); returns its text.
    @discardableResult
    public func wait(_ css: String, text: String? = nil, timeout: Int = 30) async throws -> String {
        var command: [String: Any] = ["cmd": "wait", "css": css, "timeout": timeout]
        if let text { command["text"] = text }
        return try await run(command, timeout: .seconds(timeout + 30))["text"] as? String ?? ""
    }

    /// Waits until no element matching `css` is left.
    public func waitGone(_ css: String, timeout: Int = 30) async throws {
        try await run(["cmd": "wait", "css": css, "gone": true, "timeout": timeout], timeout: .seconds(timeout + 30))
    }

    /// Clicks the element matching `css`.
    public func click(_ css: String) async throws { try await run(["cmd": "click", "css": css]) }

    /// Types `text` into the field matching `css` (cleared first), then Enter when `enter`.
    public func type(_ css: String, _ text: String, enter: Bool = false) async throws {
        try await run(["cmd": "type", "css": css, "text": text, "enter": enter])
    }

    /// A DOM property of the element matching `css` (`checked`, `value`).
    public func property(_ css: String, _ name: String) async throws -> Any? {
        try await run(["cmd": "property", "css": css, "name": name])["value"]
    }

    /// Waits until the DOM property `name` of the element matching `css` equals `value` (a string, a
    /// boolean).
    public func wait(_ css: String, property name: String, equals value: Any, timeout: Int = 30) async throws {
        try await run(
            ["cmd": "wait_property", "css": css, "name": name, "value": value, "timeout": timeout],
            timeout: .seconds(timeout + 30))
    }

    /// The page's URL now.
    public func url() async throws -> String { try await run(["cmd": "url"])["url"] as? String ?? "" }

    /// Saves the window as a PNG file at `path`.
    public func screenshot(_ path: String) async throws { try await run(["cmd": "screenshot", "path": path]) }

    /// Quits chromium and the driver.
    public func quit() async {
        _ = try? await run(["cmd": "quit"], timeout: .seconds(30))
        try? input.close()
        try? await eventually("the browser to quit", timeout: .seconds(30)) { !self.process.isRunning }
        if process.isRunning { _ = kill(process.processIdentifier, SIGKILL) }
    }

    /// What a failed test needs to see: the page's `<main>` and the browser console's messages.
    public func diagnosis() async -> String {
        guard let answer = try? await run(["cmd": "diagnose"]) else {
            return "(no diagnosis: \(errorLog.suffix(2000)))"
        }
        let console = (answer["console"] as? [String] ?? []).joined(separator: "\n")
        return "--- page ---\n\(answer["html"] as? String ?? "")\n--- console ---\n\(console)"
    }

    /// What the driver and chromium wrote to standard error.
    public var errorLog: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// Reads from the driver's output until a whole line is there; nil when it ended.
    private func readLine() -> [UInt8]? {
        while true {
            let line = buffer.withLock { b -> [UInt8]? in
                guard let newline = b.firstIndex(of: 0x0A) else { return nil }
                defer { b.removeFirst(newline + 1) }
                return Array(b[..<newline])
            }
            if let line { return line }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, 4096) }
            if n <= 0 { return nil }
            buffer.withLock { $0 += chunk[..<n] }
        }
    }

    /// The next JSON line from the driver.
    private func answer(timeout: Duration) async throws -> [String: Any] {
        let line = await withDeadline(timeout) { () async -> [UInt8]? in
            await LoopbackSocket.blocking { self.readLine() }
        }
        guard let line = line ?? nil else {
            throw TestSupportError.timedOut("no answer from the browser within \(timeout)\n\(errorLog.suffix(3000))")
        }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any] else {
            throw TestSupportError.commandFailed("the browser driver said: \(String(decoding: line, as: UTF8.self))")
        }
        return object
    }
}
