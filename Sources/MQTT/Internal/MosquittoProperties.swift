import CMosquitto
import Foundation

/// Conversion between `MQTTProperties` and libmosquitto property lists (MQTT 5 §3.3.2.3).
enum MosquittoProperties {
    /// MQTT's largest payload: the remaining length limit of a packet (MQTT 5 §1.5.5) less headers.
    static let maximumPayload = 268_435_455

    static func checkPayloadSize(_ size: Int) throws(MQTTError) {
        if size > maximumPayload { throw .payloadTooLarge(size: size) }
    }

    /// Builds a property list that the caller frees with `mosquitto_property_free_all`, or nil when there is
    /// nothing to send (no properties, or MQTT 3.1.1, which has none).
    /// - Throws: `MQTTError.invalidMessage` for correlation data over 65,535 bytes or text libmosquitto
    ///   refuses; `.invalidTopic` for a bad response topic.
    static func makeList(_ properties: MQTTProperties, protocolVersion: MQTTProtocolVersion) throws(MQTTError)
        -> OpaquePointer?
    {
        guard protocolVersion == .v5, !properties.isEmpty else { return nil }
        var list: OpaquePointer?
        do throws(MQTTError) {
            if let topic = properties.responseTopic {
                try MQTTTopic.validateName(topic)
                try add(mosquitto_property_add_string(&list, id(MQTT_PROP_RESPONSE_TOPIC), topic), "response topic")
            }
            if let data = properties.correlationData {
                guard data.count <= Int(UInt16.max) else {
                    throw .invalidMessage("correlation data is \(data.count) bytes; at most 65535 are allowed")
                }
                let rc = data.withUnsafeBytes {
                    mosquitto_property_add_binary(
                        &list, id(MQTT_PROP_CORRELATION_DATA), $0.baseAddress, UInt16(data.count))
                }
                try add(rc, "correlation data")
            }
            if let expiry = properties.messageExpiryInterval {
                try add(
                    mosquitto_property_add_int32(&list, id(MQTT_PROP_MESSAGE_EXPIRY_INTERVAL), expiry),
                    "message expiry interval")
            }
            if let contentType = properties.contentType {
                try add(mosquitto_property_add_string(&list, id(MQTT_PROP_CONTENT_TYPE), contentType), "content type")
            }
            for property in properties.userProperties {
                try add(
                    mosquitto_property_add_string_pair(
                        &list, id(MQTT_PROP_USER_PROPERTY), property.name, property.value),
                    "user property \(property.name)")
            }
        } catch {
            mosquitto_property_free_all(&list)
            throw error
        }
        return list
    }

    /// Reads the properties of a received PUBLISH. libmosquitto allocates every string and binary value
    /// it hands out with malloc; they are copied and freed here.
    static func read(_ list: OpaquePointer?) -> MQTTProperties {
        guard let list else { return MQTTProperties() }
        var properties = MQTTProperties()
        properties.responseTopic = readString(list, MQTT_PROP_RESPONSE_TOPIC)
        properties.contentType = readString(list, MQTT_PROP_CONTENT_TYPE)
        var binary: UnsafeMutableRawPointer?
        var length: UInt16 = 0
        if mosquitto_property_read_binary(list, id(MQTT_PROP_CORRELATION_DATA), &binary, &length, false) != nil {
            properties.correlationData =
                binary.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(length))) } ?? []
            free(binary)
        }
        var expiry: UInt32 = 0
        if mosquitto_property_read_int32(list, id(MQTT_PROP_MESSAGE_EXPIRY_INTERVAL), &expiry, false) != nil {
            properties.messageExpiryInterval = expiry
        }
        var name: UnsafeMutablePointer<CChar>?
        var value: UnsafeMutablePointer<CChar>?
        var cursor = mosquitto_property_read_string_pair(list, id(MQTT_PROP_USER_PROPERTY), &name, &value, false)
        while cursor != nil {
            if let name, let value {
                properties.userProperties.append(
                    MQTTUserProperty(name: String(cString: name), value: String(cString: value)))
            }
            free(name)
            free(value)
            name = nil
            value = nil
            cursor = mosquitto_property_read_string_pair(cursor, id(MQTT_PROP_USER_PROPERTY), &name, &value, true)
        }
        return properties
    }

    /// The reason string property (MQTT 5 §3.2.2.3.9) a broker may add to CONNACK, DISCONNECT and acks.
    static func reasonString(_ list: OpaquePointer?) -> String? {
        guard let list else { return nil }
        return readString(list, MQTT_PROP_REASON_STRING)
    }

    private static func readString(_ list: OpaquePointer, _ identifier: mqtt5_property) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard mosquitto_property_read_string(list, id(identifier), &value, false) != nil, let value else { return nil }
        defer { free(value) }
        return String(cString: value)
    }

    private static func id(_ identifier: mqtt5_property) -> Int32 { Int32(identifier.rawValue) }

    private static func add(_ rc: Int32, _ what: String) throws(MQTTError) {
        guard rc != MosquittoError.success else { return }
        throw .invalidMessage("\(what): \(MosquittoError.text(rc))")
    }
}
