/// A small structured logger (the shape of apple/swift-log, which cannot be fetched here).
///
/// Libraries never make their own: each part (`HomeStore`, `Gateway`, `MQTTClient`, the HAP controller
/// and providers) takes a `Logger` from its caller, and the executable makes one per part with the
/// label that starts the part's log lines (`hap`, `mqtt`, `gateway`, `homestore`, `hap2mqtt`). A part
/// may add metadata (`with(_:)`). Tests give theirs a sink of their own (`LogCapture` in
/// `Tests/HAP2MQTTTesting`) to assert what a user would read.
public struct Logger: Sendable {
    /// The part's name, written before each message (`mqtt: connected to …`).
    public let label: String
    /// Key-value pairs added to every record this logger writes.
    public var metadata: [String: String]
    private let ownSink: LogSink?

    /// A logger for `label` that writes to `sink`, or, without one, to `LogSystem`'s sink at the time
    /// of each line.
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

    /// Writes `message` at `level` with this logger's metadata and `metadata` (which wins on a clash),
    /// if the sink keeps that level; the message is not built otherwise.
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        let sink = ownSink ?? LogSystem.sink
        guard level >= sink.minimumLevel else { return }
        var all = self.metadata
        all.merge(metadata) { _, new in new }
        sink.write(LogRecord(level: level, label: label, message: message(), metadata: all))
    }

    /// `log(.trace, …)`: protocol detail (frames, bytes) for debugging a single accessory.
    public func trace(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.trace, message(), metadata)
    }
    /// `log(.debug, …)`: what the program does step by step.
    public func debug(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.debug, message(), metadata)
    }
    /// `log(.info, …)`: the life of connections and accessories.
    public func info(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.info, message(), metadata)
    }
    /// `log(.notice, …)`: something a user should know that needs no action.
    public func notice(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.notice, message(), metadata)
    }
    /// `log(.warning, …)`: something went wrong and the program goes on.
    public func warning(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.warning, message(), metadata)
    }
    /// `log(.error, …)`: something went wrong that needs the user.
    public func error(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.error, message(), metadata)
    }
}
