public import Logging
import Synchronization

/// A log handler for tests: keeps every record of the loggers it makes (or of any logger given its
/// `sink`), so that a test can assert the lines a user would read, with their level.
///
///     let log = LogCapture()
///     let gateway = Gateway(configuration: …, store: store, mqtt: mqtt, logger: log.logger(label: "gateway"))
///     …
///     try await log.waitFor(.warning, containing: "ignored a retained command on")
public final class LogCapture: Sendable {
    private let records = Mutex<[LogRecord]>([])

    /// A capture that keeps every level, trace and up.
    public init() {}

    /// The sink that records here.
    public var sink: LogSink {
        LogSink(minimumLevel: .trace) { [self] record in records.withLock { $0.append(record) } }
    }

    /// A logger with `label` that records here.
    public func logger(label: String) -> Logger { Logger(label: label, sink: sink) }

    /// Every record so far, in the order they were written.
    public var all: [LogRecord] { records.withLock { $0 } }

    /// Every line so far, as `level label: message key=value…` (metadata sorted by key).
    public var lines: [String] { all.map(Self.line) }

    /// The records at `level` whose message contains `text`.
    public func records(_ level: LogLevel, containing text: String) -> [LogRecord] {
        all.filter { $0.level == level && $0.message.contains(text) }
    }

    /// Waits until a record at `level` whose message contains `text` has been written, and returns it.
    /// - Throws: `TestSupportError.timedOut` with every line seen when none came within `timeout`.
    @discardableResult
    public func waitFor(_ level: LogLevel, containing text: String, timeout: Duration = .seconds(30)) async throws
        -> LogRecord
    {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let record = records(level, containing: text).first { return record }
            guard ContinuousClock.now < deadline else {
                throw TestSupportError.timedOut(
                    "no \(level) line containing \(text) within \(timeout); lines: \(lines.joined(separator: "\n"))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Forgets every record so far.
    public func clear() { records.withLock { $0 = [] } }

    private static func line(_ record: LogRecord) -> String {
        "\(record.level) \(record.label): \(record.message) "
            + record.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }
}
