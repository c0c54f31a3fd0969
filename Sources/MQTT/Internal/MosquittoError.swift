import CMosquitto
import Foundation

/// libmosquitto's result codes and texts, turned into Swift values.
enum MosquittoError {
    static let success = MOSQ_ERR_SUCCESS.rawValue
    static let noConnection = MOSQ_ERR_NO_CONN.rawValue

    /// `mosquitto_strerror`, except that `MOSQ_ERR_ERRNO` and `MOSQ_ERR_EAI` use the `errno` saved right
    /// after the call (libmosquitto would read the current one, which later calls may have changed).
    static func text(_ rc: Int32, savedErrno: Int32? = nil) -> String {
        if rc == MOSQ_ERR_ERRNO.rawValue, let savedErrno {
            return String(cString: strerror(savedErrno))
        }
        if rc == MOSQ_ERR_EAI.rawValue, let savedErrno {
            return "cannot resolve the host name: \(String(cString: gai_strerror(savedErrno)))"
        }
        return String(cString: mosquitto_strerror(rc))
    }

    /// The broker's text for a CONNACK: MQTT 3.1.1 return codes (§3.2.2.3) or MQTT 5 reason codes (§3.2.2.2).
    static func connackText(_ code: Int32, protocolVersion: MQTTProtocolVersion) -> String {
        switch protocolVersion {
        case .v311: return String(cString: mosquitto_connack_string(code))
        case .v5: return String(cString: mosquitto_reason_string(code))
        }
    }

    /// The text of an MQTT 5 reason code (§2.4), such as 0x87 "Not authorized".
    static func reasonText(_ code: Int32) -> String {
        String(cString: mosquitto_reason_string(code))
    }

    /// Maps a failed publish, subscribe or unsubscribe call to the error a caller can act on.
    static func operationError(_ rc: Int32, savedErrno: Int32? = nil) -> MQTTError {
        switch rc {
        case MOSQ_ERR_NO_CONN.rawValue: return .notConnected
        case MOSQ_ERR_MALFORMED_UTF8.rawValue:
            return .invalidTopic("not valid MQTT UTF-8 (control characters are not allowed)")
        default: return .protocolError(code: rc, reason: text(rc, savedErrno: savedErrno))
        }
    }
}
