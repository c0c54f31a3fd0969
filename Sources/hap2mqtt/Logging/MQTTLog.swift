import HomeModel
import MQTT

/// Routes the MQTT client's log lines into the program's log, under the label `mqtt`.
enum MQTTLog {
    static func handler() -> @Sendable (MQTTLogLevel, String) -> Void {
        let logger = Logger(label: "mqtt")
        return { level, message in
            switch level {
            case .debug: logger.debug(message)
            case .info: logger.info(message)
            case .warning: logger.warning(message)
            case .error: logger.error(message)
            }
        }
    }
}
