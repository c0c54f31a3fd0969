/// The MQTT protocol version a client speaks to its broker.
public enum MQTTProtocolVersion: Sendable, Hashable, CustomStringConvertible {
    /// MQTT 3.1.1 (OASIS standard, 2014). Message properties are not sent and never received.
    case v311
    /// MQTT 5.0 (OASIS standard, 2019): message properties (response topic, correlation data,
    /// message expiry, content type, user properties) and reason strings from the broker.
    case v5

    public var description: String {
        switch self {
        case .v311: return "3.1.1"
        case .v5: return "5"
        }
    }
}
