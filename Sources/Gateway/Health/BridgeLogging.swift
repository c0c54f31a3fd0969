public import Logging
import Synchronization

/// The log lines for `bridge/logging` (docs/DESIGN.md "Topics"): the program's log sink hands every
/// record here (`append`, from any thread), this keeps those at or above `minimumLevel` (`mqtt_log_level`,
/// default `warning`), and the running gateway publishes them (`Gateway+Logging.swift`).
///
/// Bounded twice, so that a flood of log lines cannot swamp the broker or the memory: at most `capacity`
/// lines wait here (more are dropped and counted), and the gateway publishes at most
/// `Gateway.loggingLinesPerSecond` a second, with one line saying how many it dropped. A record logged
/// while a log line is being published (`isPublishing`) is never taken, so publishing one never logs
/// another into `bridge/logging`. Records carry no secrets (docs/DESIGN.md "Configuration and files"), so
/// neither does this.
public final class BridgeLogging: Sendable {
    /// One log line as `bridge/logging` carries it.
    struct Line: Sendable, Hashable {
        var level: LogLevel
        /// The logger's label (`hap`, `mqtt`, `gateway`): the line's `namespace`.
        var namespace: String
        var message: String
    }

    private struct State {
        var minimumLevel: LogLevel
        var lines: [Line] = []
        var dropped = 0
    }

    /// The most lines that wait for the gateway.
    public static let capacity = 100

    private let state: Mutex<State>
    private let wake: AsyncStream<Void>.Continuation
    /// Yields when lines arrive; for the one gateway that publishes them.
    let arrivals: AsyncStream<Void>

    /// Lines are taken at `minimumLevel` and above.
    public init(minimumLevel: LogLevel = .warning) {
        state = Mutex(State(minimumLevel: minimumLevel))
        (arrivals, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The lowest level taken (`mqtt_log_level`); changed by a configuration reload.
    public var minimumLevel: LogLevel {
        get { state.withLock { $0.minimumLevel } }
        set { state.withLock { $0.minimumLevel = newValue } }
    }

    /// Takes `record` when it is at the level and not logged by the publishing of a log line; quick and
    /// callable from any thread (a log sink).
    public func append(_ record: LogRecord) {
        guard !Self.isPublishing else { return }
        let taken = state.withLock { s -> Bool in
            guard record.level >= s.minimumLevel else { return false }
            if s.lines.count < Self.capacity {
                s.lines.append(Line(level: record.level, namespace: record.label, message: record.message))
            } else {
                s.dropped += 1
            }
            return true
        }
        if taken { wake.yield() }
    }

    /// The lines waiting, oldest first, and how many were dropped because too many waited.
    func take() -> (lines: [Line], dropped: Int) {
        state.withLock { s in
            defer {
                s.lines = []
                s.dropped = 0
            }
            return (s.lines, s.dropped)
        }
    }

    /// True while the gateway publishes log lines: what is logged meanwhile on that task (by the MQTT
    /// client it calls) is not taken.
    @TaskLocal static var isPublishing = false
}
