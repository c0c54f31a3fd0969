import SystemSupport

/// The received messages not yet read from `MQTTClient.messages`, bounded and collapsing as
/// `MQTTInboundLimits` says, with the counts of what became of them. Filled by libmosquitto's thread
/// through a `HandOffQueue`.
struct InboundBuffer: HandOffBuffer {
    let limits: MQTTInboundLimits
    /// Unread messages from `head` on; nil slots were read or replaced. `start` is the absolute position
    /// of `slots[0]`, so that positions stay valid when the array is compacted.
    private var slots: [MQTTMessage?] = []
    private var head = 0
    private var start = 0
    /// The absolute position of the unread message of each topic that may be collapsed.
    private var collapsible: [String: Int] = [:]
    private var count = 0
    /// Whether no message waits.
    var isEmpty: Bool { count == 0 }
    private var bytes = 0
    private(set) var statistics = MQTTInboundStatistics()

    init(limits: MQTTInboundLimits) {
        self.limits = limits
    }

    /// What a message counts against `maxBytes`.
    static func cost(_ message: MQTTMessage) -> Int { message.payload.count + message.topic.utf8.count }

    /// Keeps a received message in place of the unread one on its topic, at the end, or nowhere (shed)
    /// when the buffer is full.
    mutating func append(_ message: MQTTMessage) {
        statistics.received += 1
        if message.droppedPayloadSize != nil { statistics.oversized += 1 }
        let cost = Self.cost(message)
        let collapses = limits.collapses(message)
        if collapses, let position = collapsible[message.topic], let old = slots[position - start] {
            slots[position - start] = message
            bytes += cost - Self.cost(old)
            statistics.collapsed += 1
            return
        }
        let full =
            (limits.maxMessages > 0 && count >= limits.maxMessages)
            || (limits.maxBytes > 0 && count > 0 && bytes + cost > limits.maxBytes)
        guard !full else {
            statistics.shed += 1
            return
        }
        if collapses { collapsible[message.topic] = start + slots.count }
        slots.append(message)
        count += 1
        bytes += cost
    }

    mutating func popFirst() -> MQTTMessage? {
        guard count > 0 else { return nil }
        while slots[head] == nil { head += 1 }
        guard let message = slots[head] else { return nil }
        slots[head] = nil
        if collapsible[message.topic] == start + head { collapsible[message.topic] = nil }
        head += 1
        count -= 1
        bytes -= Self.cost(message)
        if count == 0 {
            // Empty: give the array back, so that a burst leaves no large buffer behind.
            start += slots.count
            slots = []
            head = 0
        } else if head >= 64, head * 2 >= slots.count {
            slots.removeFirst(head)
            start += head
            head = 0
        }
        return message
    }
}
