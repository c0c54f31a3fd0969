/// Where log records go, and the lowest level that is kept.
public struct LogSink: Sendable {
    /// Records below this level are dropped before their message is built.
    public var minimumLevel: LogLevel
    /// Takes each record that is kept; called on the logging thread, so it must be quick and thread-safe.
    public var write: @Sendable (LogRecord) -> Void

    /// A sink that hands records at `minimumLevel` and above to `write`.
    public init(minimumLevel: LogLevel, write: @escaping @Sendable (LogRecord) -> Void) {
        self.minimumLevel = minimumLevel
        self.write = write
    }

    /// Drops everything.
    public static let discard = LogSink(minimumLevel: .error) { _ in }
}
