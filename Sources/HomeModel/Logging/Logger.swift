import Synchronization

/// Severity of a log line, lowest first.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    case trace, debug, info, notice, warning, error

    /// Parses `trace`, `debug`, `info`, `notice`, `warning` (or `warn`), `error`, in any case.
    public init?(name: String) {
        switch name.lowercased() {
        case "trace": self = .trace
        case "debug": self = .debug
        case "info": self = .info
        case "notice": self = .notice
        case "warning", "warn": self = .warning
        case "error": self = .error
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .trace: return "trace"
        case .debug: return "debug"
        case .info: return "info"
        case .notice: return "notice"
        case .warning: return "warning"
        case .error: return "error"
        }
    }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One log line: level, the logger's label (`hap`, `mqtt`, `gateway`), the message and structured
/// metadata (`accessory`, `hap.aid`, …). Never put setup codes, keys or passwords in either.
public struct LogRecord: Sendable {
    public let level: LogLevel
    public let label: String
    public let message: String
    public let metadata: [String: String]
}

/// Where log records go, and the lowest level that is kept.
public struct LogSink: Sendable {
    public var minimumLevel: LogLevel
    public var write: @Sendable (LogRecord) -> Void

    public init(minimumLevel: LogLevel, write: @escaping @Sendable (LogRecord) -> Void) {
        self.minimumLevel = minimumLevel
        self.write = write
    }

    /// Drops everything.
    public static let discard = LogSink(minimumLevel: .error) { _ in }
}

/// The program-wide default sink. Libraries log through `Logger`; the executable sets this once at start.
public enum LogSystem {
    private static let current = Mutex<LogSink>(.discard)

    /// Sets the sink every `Logger` without its own sink writes to.
    public static func bootstrap(_ sink: LogSink) { current.withLock { $0 = sink } }

    /// The sink in use.
    public static var sink: LogSink { current.withLock { $0 } }
}

/// A small structured logger (the shape of apple/swift-log, which cannot be fetched here). Libraries
/// create one per concern with a label; tests can give it their own sink to assert on what was logged.
public struct Logger: Sendable {
    public let label: String
    public var metadata: [String: String]
    private let ownSink: LogSink?

    public init(label: String, metadata: [String: String] = [:], sink: LogSink? = nil) {
        self.label = label
        self.metadata = metadata
        self.ownSink = sink
    }

    /// A copy with more metadata, e.g. `logger.with(["accessory": id.description])`.
    public func with(_ more: [String: String]) -> Logger {
        var copy = self
        copy.metadata.merge(more) { _, new in new }
        return copy
    }

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        let sink = ownSink ?? LogSystem.sink
        guard level >= sink.minimumLevel else { return }
        var all = self.metadata
        all.merge(metadata) { _, new in new }
        sink.write(LogRecord(level: level, label: label, message: message(), metadata: all))
    }

    public func trace(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.trace, message(), metadata)
    }
    public func debug(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.debug, message(), metadata)
    }
    public func info(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.info, message(), metadata)
    }
    public func notice(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.notice, message(), metadata)
    }
    public func warning(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.warning, message(), metadata)
    }
    public func error(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.error, message(), metadata)
    }
}
