/// Bounds on what an `MQTTClient` keeps of the messages it receives until `messages` is read, so that a
/// flood from the broker (a client publishing thousands of large commands) costs bounded memory however
/// slow the reader is (docs/DESIGN.md "Hostile input").
///
/// Past the bounds, messages are shed: dropped and counted in `MQTTInboundStatistics`. Before that, a
/// message that `collapses` says may replace an unread one on the same topic takes its place in the
/// queue instead of waiting behind it.
public struct MQTTInboundLimits: Sendable {
    /// The largest payload kept, in bytes; nil for no limit. A larger one is not copied: the message
    /// arrives with an empty payload and `MQTTMessage.droppedPayloadSize` set to its size, so that the
    /// reader can refuse it.
    public var maxPayloadSize: Int?
    /// The most unread messages kept; 0 for no limit.
    public var maxMessages: Int
    /// The most bytes (payloads and topics) of unread messages kept; 0 for no limit. A message larger
    /// than this alone is kept when nothing else waits.
    public var maxBytes: Int
    /// Whether `message` replaces the unread message on its topic, if there is one, that this also said
    /// true of. The replaced message is counted as collapsed. By default nothing collapses.
    public var collapses: @Sendable (_ message: MQTTMessage) -> Bool
    /// Whether the payload of a message on `topic` is kept at all. When false it is not copied, whatever
    /// its size: the message arrives as one over `maxPayloadSize` does (empty payload,
    /// `droppedPayloadSize` set), so that a reader that needs only some payloads (the gateway's scan of
    /// the retained topics, which needs every topic but few payloads) holds no more. By default every
    /// payload is kept.
    public var keepsPayload: @Sendable (_ topic: String) -> Bool

    /// Limits with the given values; by default none: every message is kept whole until read, as a
    /// general client must (a program that expects floods sets them).
    public init(
        maxPayloadSize: Int? = nil, maxMessages: Int = 0, maxBytes: Int = 0,
        collapses: @escaping @Sendable (_ message: MQTTMessage) -> Bool = { _ in false },
        keepsPayload: @escaping @Sendable (_ topic: String) -> Bool = { _ in true }
    ) {
        self.maxPayloadSize = maxPayloadSize
        self.maxMessages = maxMessages
        self.maxBytes = maxBytes
        self.collapses = collapses
        self.keepsPayload = keepsPayload
    }
}

/// What became of the messages an `MQTTClient` received, counted since it was made.
public struct MQTTInboundStatistics: Sendable, Hashable {
    /// Every message the broker delivered.
    public var received = 0
    /// Messages replaced by a newer one on the same topic before they were read (`MQTTInboundLimits.collapses`).
    public var collapsed = 0
    /// Messages dropped because the unread ones filled `maxMessages` or `maxBytes`.
    public var shed = 0
    /// Messages whose payload was dropped (the message was kept): larger than `maxPayloadSize`, or on a
    /// topic `keepsPayload` refused.
    public var oversized = 0

    /// All zero.
    public init() {}
}
