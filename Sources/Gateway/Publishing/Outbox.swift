import MQTT

/// The messages one step of the gateway builds, handed to the MQTT client in one call, and the retained
/// messages the gateway holds on the broker, which it publishes again after a reconnect (a broker without
/// persistence forgets them).
///
/// Retained messages are kept as payload and QoS only, not as `MQTTMessage`s: with its MQTT 5 properties
/// a message is five times the size, and there is one per characteristic.
struct Outbox {
    /// A retained message's payload and QoS.
    struct RetainedPayload: Sendable, Hashable {
        var payload: [UInt8]
        var qos: MQTTQoS
    }

    private var messages: [MQTTMessage] = []
    /// Every retained message the gateway holds on the broker now, by topic.
    private(set) var retained: [String: RetainedPayload] = [:]

    /// How many messages were handed to the client and accepted (`bridge/health`).
    private(set) var sent = 0

    /// Whether nothing is queued.
    var isEmpty: Bool { messages.isEmpty }

    /// Queues a retained message and keeps it for republishing.
    mutating func retain(_ topic: String, payload: [UInt8], qos: MQTTQoS) {
        retained[topic] = RetainedPayload(payload: payload, qos: qos)
        messages.append(MQTTMessage(topic: topic, payload: payload, qos: qos, retain: true))
    }

    /// Queues a retained text message and keeps it for republishing.
    mutating func retain(_ topic: String, _ text: String, qos: MQTTQoS) {
        retain(topic, payload: Array(text.utf8), qos: qos)
    }

    /// Queues a retained message that is not kept, because the gateway builds it again when it must be
    /// republished (Home Assistant's discovery configs, the largest retained payloads).
    mutating func retainUnkept(_ topic: String, _ text: String, qos: MQTTQoS) {
        messages.append(MQTTMessage(topic: topic, string: text, qos: qos, retain: true))
    }

    /// Queues an empty retained message, which deletes the one the broker holds, and forgets it here.
    mutating func clear(_ topic: String) {
        retained[topic] = nil
        messages.append(MQTTMessage(topic: topic, payload: [], qos: .atLeastOnce, retain: true))
    }

    /// Queues a message that is not retained (events, results), at QoS 1.
    mutating func send(_ topic: String, _ text: String, properties: MQTTProperties = MQTTProperties()) {
        messages.append(
            MQTTMessage(topic: topic, string: text, qos: .atLeastOnce, retain: false, properties: properties))
    }

    /// Queues messages built elsewhere (the responder's), as they are.
    mutating func send(contentsOf more: [MQTTMessage]) {
        messages += more
    }

    /// Takes everything queued, for a caller that publishes it itself and waits for the broker's
    /// acknowledgement (a step of a discovery migration).
    mutating func take() -> [MQTTMessage] {
        var batch: [MQTTMessage] = []
        swap(&batch, &messages)
        sent += batch.count
        return batch
    }

    /// Every retained message kept, sorted by topic, for a republish.
    func retainedMessages() -> [MQTTMessage] {
        retained.sorted { $0.key < $1.key }.map {
            MQTTMessage(topic: $0.key, payload: $0.value.payload, qos: $0.value.qos, retain: true)
        }
    }

    /// Hands everything queued to `client` in one call and empties the queue, also when the client
    /// throws (retained state goes out again after the reconnect; only transient messages are lost).
    /// - Throws: what `MQTTClientProtocol.publish(_:)` throws.
    mutating func flush(to client: any MQTTClientProtocol) throws(MQTTError) {
        guard !messages.isEmpty else { return }
        // Not `removeAll(keepingCapacity:)`: with the batch sharing the buffer, that allocates another of
        // the same size, and the first batch's (30,000 messages) would stay reserved for good.
        var batch: [MQTTMessage] = []
        swap(&batch, &messages)
        try client.publish(batch)
        sent += batch.count
    }
}
