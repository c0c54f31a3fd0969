import JSON
import Logging
import MQTT

/// `bridge/logging` (docs/DESIGN.md "Topics", not retained): the log lines `BridgeLogging` took, as
/// `{"level":"warning","message":"…","namespace":"gateway"}`, at QoS 0.
///
/// Rate-limited: at most `loggingLinesPerSecond` lines in each second; the rest are dropped, and once the
/// second is over one line at `warning` says how many (`"120 log lines dropped: bridge/logging carries at
/// most 20 a second"`), so a flood costs the broker at most 21 small messages a second. Lines logged while
/// the broker is away are lost. Publishing never logs: a failed publish is dropped silently, and what the
/// MQTT client logs meanwhile is not taken (`BridgeLogging.isPublishing`).
extension Gateway {
    /// The most log lines published in one second.
    static let loggingLinesPerSecond = 20

    /// Publishes the log lines as they come, until the gateway stops.
    func followLogging() async {
        guard let logging = parts.health.logging else { return }
        var window = LoggingWindow(start: .now)
        for await _ in logging.arrivals {
            guard !isStopped else { return }
            publishLogLines(from: logging, in: &window)
            // Lines were dropped in this second: say so when it ends, with what came meanwhile.
            while window.dropped > 0, !isStopped {
                do {
                    try await Task.sleep(until: window.start + .seconds(1))
                } catch {
                    return
                }
                publishLogLines(from: logging, in: &window)
            }
        }
    }

    /// What the current second of `bridge/logging` has sent and dropped.
    struct LoggingWindow {
        var start: ContinuousClock.Instant
        var sent = 0
        var dropped = 0
    }

    /// Publishes the lines waiting, as many as the second has room for, after the line that says how many
    /// the last second dropped.
    private func publishLogLines(from logging: BridgeLogging, in window: inout LoggingWindow) {
        var messages: [MQTTMessage] = []
        let now = ContinuousClock.now
        if now >= window.start + .seconds(1) {
            if window.dropped > 0 {
                messages.append(
                    loggingMessage(
                        .warning, "gateway",
                        "\(window.dropped) log lines dropped: bridge/logging carries at most \(Self.loggingLinesPerSecond) a second"
                    ))
            }
            window = LoggingWindow(start: now)
        }
        let (lines, overflow) = logging.take()
        let room = max(0, Self.loggingLinesPerSecond - window.sent)
        for line in lines.prefix(room) { messages.append(loggingMessage(line.level, line.namespace, line.message)) }
        window.sent += min(room, lines.count)
        window.dropped += overflow + max(0, lines.count - room)
        guard !messages.isEmpty else { return }
        BridgeLogging.$isPublishing.withValue(true) {
            try? mqtt.publish(messages)
        }
    }

    /// One `bridge/logging` message.
    private func loggingMessage(_ level: LogLevel, _ namespace: String, _ message: String) -> MQTTMessage {
        let line: JSONValue = [
            "level": .string(level.description), "message": .string(message), "namespace": .string(namespace),
        ]
        return MQTTMessage(topic: topics.bridgeLogging, string: line.description, qos: .atMostOnce, retain: false)
    }
}
