import Synchronization

/// The program-wide default sink. Libraries log through `Logger`; the executable sets this once at start.
public enum LogSystem {
    private static let current = Mutex<LogSink>(.discard)

    /// Sets the sink every `Logger` without its own sink writes to.
    public static func bootstrap(_ sink: LogSink) { current.withLock { $0 = sink } }

    /// The sink in use.
    public static var sink: LogSink { current.withLock { $0 } }
}
