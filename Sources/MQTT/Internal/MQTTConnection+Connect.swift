import CMosquitto
import Foundation

/// How one connection attempt starts. libmosquitto 2.0 sends CONNECT properties only from its blocking
/// `mosquitto_connect_bind_v5`; its asynchronous calls send none. An MQTT 5 persistent session needs the
/// Session Expiry Interval property (without it the broker ends the session with the connection, MQTT 5
/// §3.1.2.11.2), so such a client connects the blocking way, after a `TCPProbe` bounded by the connect
/// timeout has shown that the broker accepts connections: then the blocking `connect(2)` returns at once
/// instead of hanging for the kernel's SYN retries, and `disconnect()` is never held up by it.
extension MQTTConnection {
    /// Starts an attempt; `MOSQ_ERR_SUCCESS` when the CONNECT is on its way (the loop then drives it).
    /// On failure `errno` holds the reason for `MOSQ_ERR_ERRNO`.
    func startAttempt(first: Bool, isStopping: () -> Bool) -> Int32 {
        guard configuration.protocolVersion == .v5, let expiry = configuration.sessionExpiry else {
            return first
                ? mosquitto_connect_async(pointer, endpoint.host, Int32(endpoint.port), Int32(configuration.keepAlive))
                : mosquitto_reconnect_async(pointer)
        }
        if let code = TCPProbe.connect(
            host: endpoint.host, port: endpoint.port,
            timeout: configuration.connectTimeout, isStopping: isStopping)
        {
            errno = code
            return MOSQ_ERR_ERRNO.rawValue
        }
        var properties: OpaquePointer?
        defer { mosquitto_property_free_all(&properties) }
        let added = mosquitto_property_add_int32(
            &properties, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), UInt32(expiry.components.seconds))
        guard added == MosquittoError.success else { return added }
        return mosquitto_connect_bind_v5(
            pointer, endpoint.host, Int32(endpoint.port), Int32(configuration.keepAlive), nil, properties)
    }
}
