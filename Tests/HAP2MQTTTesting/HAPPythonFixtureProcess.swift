import Foundation
import Synchronization
import SystemSupport

/// The fixture's child process and what it printed, shared between `HAPPythonAccessory`, the thread that
/// reads the child's stdout and the process's termination handler.
final class FixtureProcess: Sendable {
    /// What the fixture reported about writes.
    struct Record: Sendable {
        var setterCalls: [HAPPythonAccessory.SetterCall] = []
        /// Which `PUT /characteristics` carried each setter call, in the same order (nil when not told).
        var setterRequests: [Int?] = []
        var rejectedWrites: [HAPPythonAccessory.RejectedWrite] = []
        var prepareRequests: [HAPPythonAccessory.PrepareRequest] = []
        var snapshotRequests: [HAPPythonAccessory.SnapshotRequest] = []
    }

    enum StartOutcome {
        case pending, ready
        case failed(HAPPythonAccessoryError)
    }

    private struct State {
        var process: Process?
        var running = false
        var ready = false
        var startError: HAPPythonAccessoryError?
        var controlPort: UInt16?
        var readyNanoseconds: UInt64?
        var record = Record()
        var partialLine: [UInt8] = []
    }

    private let state = Mutex(State())
    /// The fixture's stderr (HAP-python's log), kept across restarts.
    let log: URL

    init(log: URL) { self.log = log }

    func launch(python: String, arguments: [String]) throws(HAPPythonAccessoryError) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONUNBUFFERED"] = "1"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        if !FileManager.default.fileExists(atPath: log.path) { TestFile.create(log.path) }
        let errors = try? FileHandle(forWritingTo: log)
        _ = try? errors?.seekToEnd()
        process.standardError = errors
        process.terminationHandler = { [self] _ in exited() }
        try state.withLock { s throws(HAPPythonAccessoryError) in
            guard !s.running else { throw .alreadyRunning }
            s = State(process: process, running: true, record: s.record)
        }
        do {
            try process.run()
        } catch {
            state.withLock { $0.running = false }
            throw .startFailed("cannot run \(python): \(error)")
        }
        try? errors?.close()
        let reader = output.fileHandleForReading
        Thread { [self] in
            // Plain read(2): it returns what has arrived, where FileHandle.read(upToCount:) waits for all.
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { raw in
                    (try? SystemCall.retryingInterrupts("read") {
                        Foundation.read(reader.fileDescriptor, raw.baseAddress, raw.count)
                    }) ?? -1
                }
                guard n > 0 else { break }
                consume(buffer[0..<n])
            }
            try? reader.close()
        }.start()
    }

    private func consume(_ data: ArraySlice<UInt8>) {
        state.withLock { s in
            s.partialLine += data
            while let newline = s.partialLine.firstIndex(of: 0x0A) {
                let line = Array(s.partialLine[..<newline])
                s.partialLine.removeSubrange(...newline)
                switch FixtureJSON.line(line) {
                case .ready(let port, let nanoseconds):
                    s.controlPort = port
                    s.readyNanoseconds = nanoseconds
                    s.ready = true
                case .set(let call, let request):
                    s.record.setterCalls.append(call)
                    s.record.setterRequests.append(request)
                case .rejected(let write): s.record.rejectedWrites.append(write)
                case .prepare(let request): s.record.prepareRequests.append(request)
                case .snapshot(let request): s.record.snapshotRequests.append(request)
                case .error(let why, let portInUse):
                    if !s.ready { s.startError = portInUse ? .portInUse(0) : .startFailed(why) }
                case .other: break
                }
            }
        }
    }

    private func exited() {
        let tail = logTail()
        state.withLock { s in
            s.running = false
            s.controlPort = nil
            if !s.ready, s.startError == nil { s.startError = .startFailed("it exited before it was ready\n\(tail)") }
        }
    }

    func startOutcome() -> StartOutcome {
        state.withLock { s in
            if s.ready { return .ready }
            if let error = s.startError { return .failed(error) }
            return s.running ? .pending : .failed(.startFailed("it exited"))
        }
    }

    var isRunning: Bool { state.withLock { $0.running } }
    var controlPort: UInt16? { state.withLock { $0.controlPort } }
    var readyNanoseconds: UInt64? { state.withLock { $0.readyNanoseconds } }
    var record: Record { state.withLock { $0.record } }

    /// Sends `signal` to the running process; false when it is not running.
    func signal(_ signal: Int32) -> Bool {
        guard let pid = state.withLock({ s in s.running ? s.process?.processIdentifier : nil }) else { return false }
        return Foundation.kill(pid, signal) == 0
    }

    func killNow() { _ = signal(SIGKILL) }

    /// Waits until the process has exited; false when it still runs after `timeout`.
    @discardableResult
    func waitForExit(timeout: Duration) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while isRunning {
            guard clock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    /// The last lines of the fixture's log, for failure messages.
    func logTail() -> String {
        guard let data = FileManager.default.contents(atPath: log.path) else { return "(no log)" }
        return String(decoding: data.suffix(2000), as: UTF8.self)
    }
}
