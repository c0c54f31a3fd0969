/// Severity of a line the MQTT client logs, lowest first. The program maps it onto its own logger.
public enum MQTTLogLevel: Int, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Protocol detail: subscriptions sent, libmosquitto's own debug lines (when enabled).
    case debug
    /// Connection life: connected, reconnected, disconnected on request.
    case info
    /// Something went wrong and the client recovers by itself: connection lost, a reconnect failed.
    case warning
    /// Something went wrong that the client cannot repair: a refused subscription, a TLS failure.
    case error

    public var description: String {
        switch self {
        case .debug: return "debug"
        case .info: return "info"
        case .warning: return "warning"
        case .error: return "error"
        }
    }

    public static func < (lhs: MQTTLogLevel, rhs: MQTTLogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}
