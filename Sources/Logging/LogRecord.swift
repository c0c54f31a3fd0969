/// One log line: level, the logger's label (`hap`, `mqtt`, `gateway`), the message and structured
/// metadata (`accessory`, `hap.aid`, …). Never put setup codes, keys or passwords in either.
public struct LogRecord: Sendable, Hashable {
    /// How severe it is.
    public let level: LogLevel
    /// The label of the logger that wrote it (`hap`, `mqtt`, …).
    public let label: String
    /// The text, without level or label.
    public let message: String
    /// The logger's metadata merged with the line's own.
    public let metadata: [String: String]

    /// A record as `Logger` makes one; sinks and tests need not make their own.
    public init(level: LogLevel, label: String, message: String, metadata: [String: String] = [:]) {
        self.level = level
        self.label = label
        self.message = message
        self.metadata = metadata
    }
}
