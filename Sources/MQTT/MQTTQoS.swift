/// MQTT quality of service (MQTT 5 §4.3): at most once, at least once, exactly once.
public enum MQTTQoS: Int32, Sendable, Hashable, Comparable {
    case atMostOnce = 0
    case atLeastOnce = 1
    case exactlyOnce = 2

    public static func < (lhs: MQTTQoS, rhs: MQTTQoS) -> Bool { lhs.rawValue < rhs.rawValue }
}
