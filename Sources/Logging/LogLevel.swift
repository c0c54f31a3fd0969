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

    /// The level's name as `--log-level` takes it and log lines show it: `warning`.
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

    /// Lower is less severe: `.debug < .error`.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}
