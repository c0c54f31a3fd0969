internal import Foundation
import JSON
public import Logging
import Synchronization
import SystemSupport

/// The last log lines, for the web page's log: `hap2mqtt` hands it every record its log sink writes, and
/// the page shows the recent ones and then each new one as it comes. Holds at most `capacity` lines.
/// Log records never carry a secret (docs/DESIGN.md "Configuration and files"), so neither does this.
public final class LogFeed: Sendable {
    /// One line as the page shows it.
    struct Line: Sendable {
        var time: Date
        var level: LogLevel
        var label: String
        var message: String

        var json: String {
            let line: JSONValue = [
                "time": .string(UTCTimestamp.string(time, milliseconds: false)),
                "level": .string(level.description), "label": .string(label), "message": .string(message),
            ]
            return line.description
        }
    }

    private struct State {
        var lines: [Line] = []
        var listener: (@Sendable (Line) -> Void)?
    }

    private let state = Mutex(State())
    private let capacity: Int
    private let minimumLevel: LogLevel

    /// A feed that keeps the last `capacity` lines at `minimumLevel` and above.
    public init(capacity: Int = 200, minimumLevel: LogLevel = .info) {
        self.capacity = capacity
        self.minimumLevel = minimumLevel
    }

    /// Keeps `record` (when at the feed's level) and hands it to the page's listener; quick, callable from
    /// any thread (a log sink).
    public func append(_ record: LogRecord) {
        guard record.level >= minimumLevel else { return }
        let line = Line(time: Date(), level: record.level, label: record.label, message: record.message)
        let listener = state.withLock { s -> (@Sendable (Line) -> Void)? in
            s.lines.append(line)
            if s.lines.count > capacity { s.lines.removeFirst(s.lines.count - capacity) }
            return s.listener
        }
        listener?(line)
    }

    /// The kept lines, oldest first.
    var recent: [Line] { state.withLock { $0.lines } }

    /// Sets who hears each new line (nil: nobody).
    func listen(_ listener: (@Sendable (Line) -> Void)?) { state.withLock { $0.listener = listener } }
}
