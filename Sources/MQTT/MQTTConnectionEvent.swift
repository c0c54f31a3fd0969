/// A change of a client's connection to its broker, as delivered by `MQTTClient.connectionEvents`.
public enum MQTTConnectionEvent: Sendable, Hashable {
    /// The broker accepted the connection (CONNACK, MQTT 5 §3.2) and the remembered subscriptions were
    /// sent again. `reconnect` is false for the first connection made by `connect()`, true afterwards.
    case connected(reconnect: Bool)
    /// An established connection ended; `reason` is libmosquitto's or the broker's text
    /// ("The connection was lost.", "Session taken over", "disconnect() was called").
    case disconnected(reason: String)
}
