public import Logging
import SystemSupport

/// An MQTT client over libmosquitto 2.0: MQTT 5 and 3.1.1, TLS, user name and password, last will,
/// QoS 0/1/2, retained messages, MQTT 5 message properties, and reconnection that never gives up.
///
/// ```swift
/// let client = try MQTTClient(configuration: .init(url: "mqtt://127.0.0.1", clientID: "hap2mqtt"), logger: logger)
/// client.onConnect { [weak client] _ in
///     try? client?.publish(MQTTMessage(topic: "hap2mqtt/bridge/state", string: "online", qos: .atLeastOnce, retain: true))
/// }
/// try await client.subscribe(["hap2mqtt/+/set"])
/// try await client.connect()
/// for await message in client.messages { … }
/// ```
///
/// After `connect()` succeeded the client keeps the connection up by itself: when it breaks it reconnects
/// with exponential back-off (`MQTTConfiguration.reconnectDelay`), sends every remembered subscription
/// again, then the QoS 1/2 messages published meanwhile, then calls the `onConnect` hooks. Reconnects are
/// reported only through `connectionEvents` and the log. `disconnect()` ends it for good.
///
/// Every method may be called from any thread or task. Callbacks from libmosquitto run on the client's
/// own thread (or, for a write, on the publishing one) and only copy data into the streams.
public final class MQTTClient: Sendable {
    /// Every message the broker delivers, in arrival order, with its retain flag and MQTT 5 properties.
    /// Meant for one consumer; it keeps unread messages within `MQTTConfiguration.inbound` (without limit
    /// by default; collapsing and shedding past it, counted in `inboundStatistics`), and finishes after
    /// `disconnect()`.
    public let messages: AsyncStream<MQTTMessage>
    /// Makes `wake` the consumer of the messages, in place of `messages` (`HandOffQueue.attach(_:)`):
    /// called on libmosquitto's thread when a message arrives and the consumer is idle, so that it can
    /// start its task there (`Task.immediate`) rather than wait for a pool thread to wake up.
    public func attachReader(_ wake: @escaping @Sendable () -> Void) { connection.inbound.attach(wake) }
    /// Forgets the consumer of `attachReader(_:)`.
    public func detachReader() { connection.inbound.detach() }
    /// The next message for the consumer of `attachReader(_:)`; nil when none waits.
    public func takeMessage() -> MQTTMessage? { connection.inbound.take() }
    /// Connection changes, for one consumer; keeps the newest 100 if nobody reads them. Finishes after
    /// `disconnect()`.
    public let connectionEvents: AsyncStream<MQTTConnectionEvent>

    let connection: MQTTConnection

    /// Creates a client; nothing touches the network until `connect()`.
    /// - Parameters:
    ///   - configuration: the broker URL, identity, credentials, TLS files, will and timing.
    ///   - logger: where the client's log lines go (never the password): the connection's life at
    ///     `info`, recoverable trouble at `warning`, what it cannot repair at `error`, protocol detail at
    ///     `debug`.
    /// - Throws: `MQTTError.invalidURL` for a URL that is not `mqtt://host[:port]` or
    ///   `mqtts://host[:port]`; `.invalidConfiguration` for unreadable TLS files or out-of-range
    ///   settings; `.invalidTopic`, `.payloadTooLarge` or `.invalidMessage` for a bad will.
    public init(configuration: MQTTConfiguration, logger: Logger) throws(MQTTError) {
        let inbound = HandOffQueue(InboundBuffer(limits: configuration.inbound))
        let messages = inbound.stream
        let (events, eventContinuation) = AsyncStream.makeStream(
            of: MQTTConnectionEvent.self, bufferingPolicy: .bufferingNewest(100))
        self.messages = messages
        self.connectionEvents = events
        self.connection = try MQTTConnection(
            configuration: configuration, logger: logger, messages: inbound, events: eventContinuation)
    }

    deinit {
        connection.stopWithoutWaiting()
    }

    /// What became of the messages received so far: collapsed, shed, or with their payload dropped
    /// (`MQTTConfiguration.inbound`).
    public var inboundStatistics: MQTTInboundStatistics { connection.inbound.withBuffer { $0.statistics } }

    /// Connects and waits for the broker's CONNACK. From then on the client reconnects by itself until
    /// `disconnect()`. Calling it again while the client runs returns at once (or waits for the same
    /// first connection).
    /// - Throws: `MQTTError.connectionRefused` with the broker's reason (bad credentials, not
    ///   authorised); `.connectionFailed` when the broker cannot be reached; `.tls` when the handshake
    ///   fails (untrusted certificate, wrong host name); `.timedOut` after `connectTimeout`; `.closed`
    ///   after `disconnect()`. After a failure the client is as before and `connect()` may be retried.
    public func connect() async throws(MQTTError) {
        try await connection.start()
    }

    /// Sends DISCONNECT (so the broker discards the last will), stops reconnecting, fails operations still
    /// waiting with `.notConnected` and finishes both streams. QoS 1/2 messages not yet acknowledged are
    /// lost. Returns when the client's thread has ended; the client cannot be used again.
    public func disconnect() async {
        await connection.stop()
    }

    /// Publishes without waiting: on an established connection the message is written to the socket by
    /// the calling thread before this returns, or, when the client's thread (or another publisher) is
    /// reading or writing the socket at that moment, by that thread as soon as it is done (what the
    /// socket cannot take yet, the client's thread writes later); while connecting, the client's thread
    /// writes it. This is the hot path (thousands of messages per second).
    ///
    /// While the client is reconnecting, QoS 0 messages are dropped (state is republished after every
    /// reconnect) and QoS 1/2 messages are kept, up to `MQTTOutboundLimits.maxQueuedMessages`, and sent after the next
    /// CONNACK in order.
    /// - Throws: `MQTTError.invalidTopic` (empty, `+`, `#`, NUL), `.payloadTooLarge`, `.invalidMessage`
    ///   (a property out of range), `.notConnected` before `connect()`, `.closed` after `disconnect()`.
    public func publish(_ message: MQTTMessage) throws(MQTTError) {
        try connection.publish([message])
    }

    /// Publishes several messages in order under one lock: cheaper than one call each. A message that
    /// fails its checks (topic, payload size, properties) is left out and the others are sent: one bad
    /// message never costs the rest of a batch.
    /// - Throws: as `publish(_:)`; for a bad message, after the others were handed over, the first bad
    ///   one's error.
    public func publish(_ messages: [MQTTMessage]) throws(MQTTError) {
        try connection.publish(messages)
    }

    /// Publishes and returns when the broker acknowledged the message (PUBACK for QoS 1, PUBCOMP for
    /// QoS 2) or, for QoS 0, when it was written to the socket. A QoS 1/2 message published while the
    /// client is reconnecting is sent, and acknowledged, after the reconnect.
    /// - Throws: as `publish(_:)`; `.notConnected` for a QoS 0 message while disconnected or when
    ///   `disconnect()` is called while waiting; `.protocolError` when the broker refuses the message
    ///   (MQTT 5 reason code 0x80 or above, such as 0x87 "Not authorized").
    public func publishAndWait(_ message: MQTTMessage) async throws(MQTTError) {
        try await connection.publishAndWait(message)
    }

    /// Messages waiting for room in the send window (`MQTTOutboundLimits.sendWindowBytes`) and messages
    /// kept while disconnected; for tests.
    var waitingCounts: (backlog: Int, offline: Int) { connection.waitingCounts }

    /// Subscribes to topic filters and remembers them: they are subscribed again after every reconnect.
    /// When connected, returns after the broker's SUBACK; before `connect()` or while reconnecting, the
    /// filters are only remembered and go out with the next connection.
    ///
    /// With `retainAsPublished` (MQTT 5 "Retain As Published", §3.8.3.1; ignored with 3.1.1), messages
    /// forwarded live keep the retain flag they were published with, so a subscriber can tell a retained
    /// publish from a plain one; without it the broker clears the flag on everything but the retained
    /// messages sent when the subscription is made.
    /// - Throws: `MQTTError.invalidTopic` for a malformed filter (`a/#/b`, `a+`); `.protocolError` when
    ///   the broker refuses a filter (it is then forgotten); `.closed` after `disconnect()`.
    public func subscribe(_ filters: [String], qos: MQTTQoS = .atLeastOnce, retainAsPublished: Bool = false)
        async throws(MQTTError)
    {
        try await connection.subscribe(filters, qos: qos, retainAsPublished: retainAsPublished)
    }

    /// Forgets topic filters and, when connected, unsubscribes and waits for the broker's UNSUBACK.
    /// - Throws: `MQTTError.invalidTopic` for a malformed filter; `.closed` after `disconnect()`.
    public func unsubscribe(_ filters: [String]) async throws(MQTTError) {
        try await connection.unsubscribe(filters)
    }

    /// Adds a hook called after every connection the broker accepts (`reconnect` false for the first),
    /// after the remembered subscriptions and queued messages were sent: the place to publish
    /// `online` and the full state. Hooks run in the order added, one connection at a time. Register
    /// hooks before `connect()`; capture the client weakly, since the client keeps its hooks until
    /// `disconnect()`.
    public func onConnect(_ hook: @escaping @Sendable (_ reconnect: Bool) async -> Void) {
        connection.addConnectHook(hook)
    }

    /// True while a connection is established and accepted by the broker.
    public var isConnected: Bool { connection.isConnected }
}
