/// One MQTT 5 user property (MQTT 5 §3.3.2.3.7): a name/value pair of UTF-8 strings. Names may repeat
/// and their order is kept.
public struct MQTTUserProperty: Sendable, Hashable {
    /// The property's name; not unique.
    public var name: String
    /// The property's value.
    public var value: String

    /// A property `name`: `value`.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// The MQTT 5 properties of a PUBLISH packet that this client sends and reads (MQTT 5 §3.3.2.3).
/// They are ignored when the client speaks MQTT 3.1.1, and are empty on messages received over 3.1.1.
public struct MQTTProperties: Sendable, Hashable {
    /// Where the receiver should send its answer (§3.3.2.3.5), as `mosquitto_rr -e` expects.
    public var responseTopic: String?
    /// Opaque bytes the receiver echoes with its answer (§3.3.2.3.6); at most 65,535 bytes.
    public var correlationData: [UInt8]?
    /// Seconds after which the broker discards the message if it has not delivered it (§3.3.2.3.3).
    /// Also ends the life of a retained message.
    public var messageExpiryInterval: UInt32?
    /// A MIME type describing the payload, such as `application/json` (§3.3.2.3.9).
    public var contentType: String?
    /// Free name/value pairs (§3.3.2.3.7), in order.
    public var userProperties: [MQTTUserProperty]

    /// Properties with the given values; the defaults set nothing.
    public init(
        responseTopic: String? = nil,
        correlationData: [UInt8]? = nil,
        messageExpiryInterval: UInt32? = nil,
        contentType: String? = nil,
        userProperties: [MQTTUserProperty] = []
    ) {
        self.responseTopic = responseTopic
        self.correlationData = correlationData
        self.messageExpiryInterval = messageExpiryInterval
        self.contentType = contentType
        self.userProperties = userProperties
    }

    /// True when no property is set, so nothing extra goes on the wire.
    public var isEmpty: Bool {
        responseTopic == nil && correlationData == nil && messageExpiryInterval == nil && contentType == nil
            && userProperties.isEmpty
    }
}

/// An application message (MQTT 5 §3.3, PUBLISH): a topic, the payload bytes, the QoS, the retain flag
/// and the MQTT 5 properties. Used both for what the client publishes and for what it receives, where
/// `retain` is true when the broker delivered a stored retained message to a new subscription.
public struct MQTTMessage: Sendable, Hashable {
    /// The topic name: UTF-8, not empty, no `+`, `#` or NUL when publishing.
    public var topic: String
    /// The payload, at most 268,435,455 bytes. An empty retained payload clears the retained message.
    public var payload: [UInt8]
    /// The delivery guarantee: for a received message, the lower of the sender's and the subscription's.
    public var qos: MQTTQoS
    /// Publishing: the broker keeps the message for future subscribers. Received: it is such a kept
    /// message, delivered because of a new subscription (a live message arrives with `retain` false).
    public var retain: Bool
    /// MQTT 5 properties; empty over MQTT 3.1.1.
    public var properties: MQTTProperties
    /// Received only: the size of a payload the client did not keep because it was larger than
    /// `MQTTInboundLimits.maxPayloadSize` (`payload` is then empty); nil when the payload is whole.
    public var droppedPayloadSize: Int?

    /// A message with a binary payload.
    public init(
        topic: String, payload: [UInt8], qos: MQTTQoS = .atMostOnce, retain: Bool = false,
        properties: MQTTProperties = .init()
    ) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.properties = properties
    }

    /// A message whose payload is `string` in UTF-8.
    public init(
        topic: String, string: String, qos: MQTTQoS = .atMostOnce, retain: Bool = false,
        properties: MQTTProperties = .init()
    ) {
        self.init(topic: topic, payload: Array(string.utf8), qos: qos, retain: retain, properties: properties)
    }

    /// The payload as UTF-8 text, or nil when it is not valid UTF-8.
    public var payloadString: String? {
        String(validating: payload, as: UTF8.self)
    }
}
