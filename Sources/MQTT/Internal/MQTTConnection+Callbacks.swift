import CMosquitto
import Foundation
import Synchronization

/// The connection a libmosquitto callback belongs to. The userdata is an unretained pointer: the loop
/// thread holds the connection alive while it runs, and so does a caller inside `writeQueued()`, the
/// only other place callbacks run.
private func connection(from userdata: UnsafeMutableRawPointer?) -> MQTTConnection? {
    guard let userdata else { return nil }
    return Unmanaged<MQTTConnection>.fromOpaque(userdata).takeUnretainedValue()
}

extension MQTTConnection {
    /// Registers the callbacks. The v5 variants are called for MQTT 3.1.1 too (without properties).
    func installCallbacks() {
        let mosq = pointer
        mosquitto_user_data_set(mosq, Unmanaged.passUnretained(self).toOpaque())
        mosquitto_connect_v5_callback_set(mosq) { _, userdata, code, _, properties in
            connection(from: userdata)?.didReceiveConnack(code: code, properties: properties)
        }
        mosquitto_disconnect_v5_callback_set(mosq) { _, userdata, rc, properties in
            connection(from: userdata)?.didDisconnect(rc: rc, savedErrno: errno, properties: properties)
        }
        mosquitto_publish_v5_callback_set(mosq) { _, userdata, mid, reasonCode, _ in
            connection(from: userdata)?.didCompletePublish(mid: mid, reasonCode: reasonCode)
        }
        mosquitto_subscribe_v5_callback_set(mosq) { _, userdata, mid, count, granted, _ in
            let codes = granted.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(count, 0)))) } ?? []
            connection(from: userdata)?.didReceiveSuback(mid: mid, granted: codes)
        }
        mosquitto_unsubscribe_v5_callback_set(mosq) { _, userdata, mid, _ in
            connection(from: userdata)?.didReceiveUnsuback(mid: mid)
        }
        mosquitto_message_v5_callback_set(mosq) { _, userdata, message, properties in
            guard let message else { return }
            connection(from: userdata)?.didReceive(message.pointee, properties: properties)
        }
        listenToLibraryLog(true)
    }

    /// Installs or removes libmosquitto's log callback. With one installed, libmosquitto formats a debug
    /// line for every packet it sends or receives, whatever the level (MQTTConnection+DirectIO.swift).
    func listenToLibraryLog(_ listen: Bool) {
        guard listen else {
            mosquitto_log_callback_set(pointer, nil)
            return
        }
        mosquitto_log_callback_set(pointer) { _, userdata, level, text in
            guard let text else { return }
            connection(from: userdata)?.didLog(level: level, text: text)
        }
    }

    private func didReceiveConnack(code: Int32, properties: OpaquePointer?) {
        let reason =
            MosquittoProperties.reasonString(properties)
            ?? MosquittoError.connackText(code, protocolVersion: configuration.protocolVersion)
        state.withLock { $0.attempt.connack = (code, reason) }
    }

    /// libmosquitto calls this with a `MOSQ_ERR_*` code when the socket fails, and with the broker's MQTT 5
    /// reason code (0x80 and above) when the broker sent DISCONNECT. The first reason of an attempt wins:
    /// libmosquitto may report the same end twice.
    private func didDisconnect(rc: Int32, savedErrno: Int32, properties: OpaquePointer?) {
        guard rc != MosquittoError.success else { return }
        var reason =
            rc >= 0x80
            ? "the broker disconnected the client: \(MosquittoError.reasonText(rc))"
            : MosquittoError.text(rc, savedErrno: savedErrno)
        if let text = MosquittoProperties.reasonString(properties) { reason += " (\(text))" }
        state.withLock { state in
            if state.attempt.disconnectReason == nil { state.attempt.disconnectReason = reason }
            if rc == MQTT_RC_SESSION_TAKEN_OVER.rawValue { state.attempt.sessionTakenOver = true }
        }
    }

    private func didReceive(_ message: mosquitto_message, properties: OpaquePointer?) {
        let payload: [UInt8]
        let size = Int(max(message.payloadlen, 0))
        let topic = message.topic.map { String(cString: $0) } ?? ""
        // A payload over the limit, or not wanted, is never copied: libmosquitto frees its copy when this
        // returns.
        let limits = configuration.inbound
        let dropsPayload =
            (limits.maxPayloadSize.map { size > $0 } ?? false) || (size > 0 && !limits.keepsPayload(topic))
        if let bytes = message.payload, size > 0, !dropsPayload {
            payload = Array(UnsafeRawBufferPointer(start: bytes, count: size))
        } else {
            payload = []
        }
        var received = MQTTMessage(
            topic: topic,
            payload: payload,
            qos: MQTTQoS(rawValue: message.qos) ?? .atMostOnce,
            retain: message.retain,
            properties: MosquittoProperties.read(properties))
        if dropsPayload { received.droppedPayloadSize = size }
        // Called inside a read, with `directIO` held: the consumer is woken after it (`drive`).
        if let wake = inbound.pushLeavingWake(received) { pendingWake.withLock { $0 = wake } }
    }

    private func didLog(level: Int32, text: UnsafePointer<CChar>) {
        if level == MOSQ_LOG_ERR {
            // OpenSSL's reason for a failed handshake only reaches us through the log.
            var line = String(cString: text)
            for prefix in ["OpenSSL Error[0]: ", "Error: "] where line.hasPrefix(prefix) {
                line.removeFirst(prefix.count)
            }
            state.withLock { state in
                if state.attempt.errorLog == nil { state.attempt.errorLog = line }
            }
        }
        switch level {
        case MOSQ_LOG_ERR: log(.error, "libmosquitto: \(String(cString: text))")
        case MOSQ_LOG_WARNING: log(.warning, "libmosquitto: \(String(cString: text))")
        case MOSQ_LOG_DEBUG: if configuration.logLibraryDebug { log(.debug, "libmosquitto: \(String(cString: text))") }
        default: log(.info, "libmosquitto: \(String(cString: text))")
        }
    }
}
