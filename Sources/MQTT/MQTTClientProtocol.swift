/// What a program needs of an MQTT client to follow a broker: publish, subscribe, take the messages that
/// arrive, and act after every connection. `MQTTClient` is the real one; tests of the Gateway use a
/// recording fake (`RecordingMQTTClient` in Tests/HAP2MQTTTesting), so that they need no broker and can
/// check exactly what was published. The members mean what `MQTTClient`'s say.
public protocol MQTTClientProtocol: AnyObject, Sendable {
    /// Every message the broker delivers, in arrival order; meant for one consumer.
    var messages: AsyncStream<MQTTMessage> { get }
    /// Makes `wake` the consumer of the messages, in place of `messages`: it is called on the thread
    /// that received a message (libmosquitto's) when the consumer is idle, and the consumer then calls
    /// `takeMessage()` until it answers nil.
    func attachReader(_ wake: @escaping @Sendable () -> Void)
    /// Forgets the consumer of `attachReader(_:)`.
    func detachReader()
    /// For the consumer of `attachReader(_:)`: the next message in arrival order, or nil when none
    /// waits, after which the next message wakes it again.
    func takeMessage() -> MQTTMessage?
    /// True while a connection is established and accepted by the broker.
    var isConnected: Bool { get }
    /// Publishes several messages in order without waiting; a bad one is left out and the others are
    /// sent, then its error is thrown.
    /// - Throws: `MQTTError` (`.invalidTopic`, `.payloadTooLarge`, `.invalidMessage`, `.notConnected`,
    ///   `.closed`).
    func publish(_ messages: [MQTTMessage]) throws(MQTTError)
    /// Publishes and returns when the broker acknowledged the message.
    /// - Throws: as `publish(_:)`; `.protocolError` when the broker refuses the message.
    func publishAndWait(_ message: MQTTMessage) async throws(MQTTError)
    /// Subscribes to topic filters, again after every reconnect; `retainAsPublished` keeps the retain
    /// flag of messages forwarded live (MQTT 5 §3.8.3.1).
    /// - Throws: `MQTTError.invalidTopic`, `.protocolError` when the broker refuses a filter, `.closed`.
    func subscribe(_ filters: [String], qos: MQTTQoS, retainAsPublished: Bool) async throws(MQTTError)
    /// The retained messages the broker holds on topics matching `filters`, read apart from this client's
    /// session; the scan ends at an empty message it publishes on `endMarker`. Only the payloads of topics
    /// `keep` accepts are kept; the others arrive empty, with `droppedPayloadSize` set.
    /// - Throws: `MQTTError` when the broker cannot be read now (`.timedOut` when the marker never came).
    func retainedMessages(
        matching filters: [String], endMarker: String, timeout: Duration,
        keepingPayloadOf keep: @escaping @Sendable (_ topic: String) -> Bool
    ) async throws(MQTTError) -> [MQTTMessage]
    /// Adds a hook called after every connection the broker accepts (`reconnect` false for the first).
    func onConnect(_ hook: @escaping @Sendable (_ reconnect: Bool) async -> Void)
    /// What became of the messages received so far (collapsed, shed, payload dropped).
    var inboundStatistics: MQTTInboundStatistics { get }
}

extension MQTTClientProtocol {
    /// A client that neither collapses nor sheds: nothing counted.
    public var inboundStatistics: MQTTInboundStatistics { MQTTInboundStatistics() }
}

extension MQTTClient: MQTTClientProtocol {}
