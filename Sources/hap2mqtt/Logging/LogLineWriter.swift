import Foundation
import Gateway
import JSON
import Logging
import Synchronization
import SystemSupport
import Web

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes log records as single lines to a file descriptor, standard error unless told otherwise:
///
///     2025-06-01T12:00:00.123Z info    mqtt: connected host=127.0.0.1 port=1883
///
/// The time is ISO 8601 in UTC with milliseconds, the level is padded to the longest level name, then
/// the logger's label, the message, and the metadata as `key=value` sorted by key. Line breaks and
/// control characters in the message are escaped; a metadata value with spaces, quotes, `=` or
/// control characters is written as a JSON string. So every record is exactly one line.
///
/// Records from many threads never interleave: each line is written whole, under a lock.
final class LogLineWriter: Sendable {
    private let fileDescriptor: Int32
    private let clock: @Sendable () -> Date
    private let lock = Mutex(())

    /// A writer to `fileDescriptor` (which it does not close), taking each record's time from `clock`.
    init(fileDescriptor: Int32 = STDERR_FILENO, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.fileDescriptor = fileDescriptor
        self.clock = clock
    }

    /// A sink for `LogSystem.bootstrap` that writes records at `minimumLevel` and above, and hands each
    /// of them to the web page's log (`LogFeed.program`); records at `bridgeLevel` and above (which may be
    /// lower) go to `bridge/logging` (`BridgeLogging.program`, whose level this sets).
    func sink(minimumLevel: LogLevel, bridgeLevel: LogLevel) -> LogSink {
        BridgeLogging.program.minimumLevel = bridgeLevel
        return LogSink(minimumLevel: min(minimumLevel, bridgeLevel)) { [self] record in
            if record.level >= minimumLevel {
                write(record)
                LogFeed.program.append(record)
            }
            BridgeLogging.program.append(record)
        }
    }

    /// Writes one record as one line. Write errors are dropped: there is nowhere left to report them.
    func write(_ record: LogRecord) {
        let line = Self.format(record, at: clock()) + "\n"
        lock.withLock { _ in StandardStream.write(line, to: fileDescriptor) }
    }

    /// The line for `record` at `date`, without the line break.
    static func format(_ record: LogRecord, at date: Date) -> String {
        let level = record.level.description
        var line =
            UTCTimestamp.string(date, milliseconds: true) + " " + level
            + String(repeating: " ", count: max(0, 7 - level.count)) + " "
        line +=
            JSONString.escapingControlCharacters(record.label) + ": "
            + JSONString.escapingControlCharacters(record.message)
        for (key, value) in record.metadata.sorted(by: { $0.key < $1.key }) {
            let shown = needsQuotes(value) ? value.jsonQuoted : value
            line += " " + JSONString.escapingControlCharacters(key) + "=" + shown
        }
        return line
    }

    private static func needsQuotes(_ value: String) -> Bool {
        value.isEmpty
            || value.unicodeScalars.contains { scalar in
                scalar.value <= 0x20 || scalar.properties.generalCategory == .control || scalar == "\"" || scalar == "="
                    || scalar == "\\"
            }
    }

}
