import HomeModel
import Synchronization

/// Collects every log record (trace and up) of the loggers made with `logger(label:)`, so a test can look
/// at what was logged.
final class LogCapture: Sendable {
    private let records = Mutex<[LogRecord]>([])

    /// A logger that writes here.
    func logger(label: String = "hap") -> Logger {
        Logger(label: label, sink: LogSink(minimumLevel: .trace) { [self] record in records.withLock { $0.append(record) } })
    }

    /// Every line so far, as `level label: message key=value…`.
    var lines: [String] {
        records.withLock { $0 }.map { record in
            "\(record.level) \(record.label): \(record.message) "
                + record.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
    }
}
