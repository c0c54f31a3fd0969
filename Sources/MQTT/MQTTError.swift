/// Why an MQTT operation failed. Cases carry libmosquitto's or the broker's own reason text
/// (`mosquitto_strerror`, `mosquitto_connack_string`, `mosquitto_reason_string`, OpenSSL's error line),
/// and print as one line.
public enum MQTTError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The broker URL is not `mqtt://host[:port]` or `mqtts://host[:port]`.
    case invalidURL(String)
    /// A setting cannot work: an unreadable CA/certificate/key file, a key without a certificate, a
    /// keep-alive outside 5...65535 s, TLS files with an `mqtt://` URL.
    case invalidConfiguration(String)
    /// The broker answered CONNACK with a refusal; `code` is the CONNACK return code (3.1.1) or
    /// reason code (MQTT 5), `reason` the broker's text ("Bad user name or password").
    case connectionRefused(code: Int, reason: String)
    /// No connection could be made or it broke before CONNACK ("Connection refused", "Lookup error").
    case connectionFailed(String)
    /// The broker did not answer in time (no CONNACK within `connectTimeout`).
    case timedOut(String)
    /// The client is not running: `connect()` was not called or did not succeed, or `disconnect()`
    /// was called while the operation waited.
    case notConnected
    /// `disconnect()` was called: this client is finished; make a new one.
    case closed
    /// The TLS handshake failed; carries OpenSSL's reason ("certificate verify failed").
    case tls(String)
    /// libmosquitto or the broker rejected an operation; `code` is a `MOSQ_ERR_*` value or an MQTT 5
    /// reason code (0x80 and above), `reason` its text.
    case protocolError(code: Int32, reason: String)
    /// A topic or topic filter is not valid here: empty, longer than 65,535 bytes, with NUL, or with
    /// `+`/`#` in a topic name or misplaced in a filter.
    case invalidTopic(String)
    /// A message property is out of range, such as correlation data longer than 65,535 bytes.
    case invalidMessage(String)
    /// The payload is larger than MQTT allows (268,435,455 bytes).
    case payloadTooLarge(size: Int)

    public var description: String {
        switch self {
        case .invalidURL(let text): return "invalid MQTT URL: \(text)"
        case .invalidConfiguration(let text): return "invalid MQTT configuration: \(text)"
        case .connectionRefused(let code, let reason): return "MQTT broker refused the connection (\(code)): \(reason)"
        case .connectionFailed(let text): return "MQTT connection failed: \(text)"
        case .timedOut(let text): return "MQTT timed out: \(text)"
        case .notConnected: return "MQTT client is not connected"
        case .closed: return "MQTT client was disconnected by disconnect(); create a new client"
        case .tls(let text): return "MQTT TLS error: \(text)"
        case .protocolError(let code, let reason): return "MQTT error (\(code)): \(reason)"
        case .invalidTopic(let text): return "invalid MQTT topic: \(text)"
        case .invalidMessage(let text): return "invalid MQTT message: \(text)"
        case .payloadTooLarge(let size): return "MQTT payload too large: \(size) bytes (at most 268435455)"
        }
    }
}
