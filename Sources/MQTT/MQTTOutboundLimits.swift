/// What an `MQTTClient` keeps of published messages until the broker has them
/// (`MQTTConfiguration.outbound`), the counterpart of `MQTTInboundLimits`.
public struct MQTTOutboundLimits: Sendable, Hashable {
    /// How many QoS 1 and 2 messages `publish` keeps while the client is reconnecting; they are sent in
    /// order after the next CONNACK. Beyond this the oldest are dropped (with a warning in the log).
    /// QoS 0 messages published while disconnected are dropped at once.
    public var maxQueuedMessages: Int = 10_000
    /// How many bytes (payloads and topics, plus 256 a message for libmosquitto's own records) of
    /// published messages libmosquitto may hold at once: QoS 0
    /// messages not yet written to the socket, QoS 1/2 messages not yet acknowledged. Later messages wait
    /// in this client, in order, and go out as earlier ones complete. libmosquitto copies every payload
    /// it takes; a gateway publishing its whole home at once would otherwise hold a second copy of it
    /// (8 MB at 10,000 characteristics). A message larger than the window goes alone. 0: no limit.
    public var sendWindowBytes: Int = 512 * 1024

    /// The defaults: 10,000 messages kept while reconnecting, a send window of 512 KiB.
    public init(maxQueuedMessages: Int = 10_000, sendWindowBytes: Int = 512 * 1024) {
        self.maxQueuedMessages = maxQueuedMessages
        self.sendWindowBytes = sendWindowBytes
    }
}
