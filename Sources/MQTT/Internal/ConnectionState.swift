/// How a waiting caller learns the outcome of an acknowledged operation.
typealias Completion = CheckedContinuation<Result<Void, MQTTError>, Never>

/// A hook registered with `MQTTClient.onConnect`.
typealias ConnectHook = @Sendable (_ reconnect: Bool) async -> Void

/// A `publishAndWait` whose message libmosquitto has, waiting for PUBACK/PUBCOMP (or, for QoS 0,
/// for the packet to be written).
struct PendingPublish {
    var qos: MQTTQoS
    var completion: Completion
}

/// How a remembered filter is subscribed: its QoS and whether live messages keep their retain flag.
struct SubscriptionOptions: Hashable, Comparable {
    var qos: MQTTQoS
    var retainAsPublished: Bool

    static func < (a: Self, b: Self) -> Bool {
        (a.qos.rawValue, a.retainAsPublished ? 1 : 0) < (b.qos.rawValue, b.retainAsPublished ? 1 : 0)
    }
}

/// A `subscribe` waiting for its SUBACK.
struct PendingSubscribe {
    var filters: [String]
    var completion: Completion
}

/// A QoS 1/2 message published while the client was reconnecting, sent after the next CONNACK.
struct QueuedPublish {
    var message: MQTTMessage
    var completion: Completion?
}

/// What the callbacks learn about the connection attempt in progress; the loop thread reads it to decide
/// how the attempt ended.
struct AttemptFacts {
    /// The CONNACK code and the broker's text, once it arrived.
    var connack: (code: Int32, reason: String)?
    /// Why libmosquitto or the broker ended the connection, from the first disconnect callback.
    var disconnectReason: String?
    /// The first error line libmosquitto logged (OpenSSL's reason for a failed handshake).
    var errorLog: String?
    /// The broker ended the connection because another client connected with the same client id (MQTT 5
    /// DISCONNECT with reason code 0x8E, Session taken over, §3.14.2.1).
    var sessionTakenOver = false
}

/// Everything about a client that more than one thread touches, kept behind one `Mutex`.
///
/// Lock order: this lock may be taken inside libmosquitto callbacks (which hold libmosquitto's callback
/// mutex), and libmosquitto calls made while holding it only queue packets, never run callbacks (the
/// client is in threaded mode), so no cycle can form.
/// The bytes of the messages libmosquitto holds (not yet written or acknowledged), against
/// `MQTTOutboundLimits.sendWindowBytes`.
struct SendWindow {
    /// Their total.
    var bytes = 0
    /// Each one's share, by message id, taken off the total when it is acknowledged or dropped.
    var shares: [Int32: Int] = [:]
}

/// The operations waiting for an answer of the broker or for the loop thread, each resumed exactly once.
struct Waiters {
    /// QoS 1/2 publishes awaiting PUBACK or PUBCOMP (QoS 0: the write), by message id.
    var publish: [Int32: PendingPublish] = [:]
    /// SUBSCRIBEs awaiting SUBACK, by message id.
    var subscribe: [Int32: PendingSubscribe] = [:]
    /// UNSUBSCRIBEs awaiting UNSUBACK, by message id.
    var unsubscribe: [Int32: Completion] = [:]
    /// `connect()` calls awaiting the first CONNACK.
    var connect: [Completion] = []
    /// `disconnect()` calls awaiting the end of the loop thread.
    var stop: [CheckedContinuation<Void, Never>] = []
}

struct ConnectionState {
    enum Phase {
        /// `connect()` not called yet, or the first connection failed.
        case idle
        /// The loop thread runs: connecting, connected or waiting to reconnect.
        case running
        /// `disconnect()` was called; the loop thread is sending DISCONNECT and ending.
        case stopping
        /// Finished for good; the streams are finished.
        case closed
    }

    var phase = Phase.idle
    /// CONNACK accepted, remembered subscriptions re-sent, offline queue flushed.
    var ready = false
    /// A connection was ready at least once (later ones are reconnects).
    var everReady = false
    /// Remembered topic filters and their QoS, sent again after every reconnect.
    var subscriptions: [String: SubscriptionOptions] = [:]
    /// Filters unsubscribed while disconnected with a persistent session, which the broker still holds:
    /// unsubscribed after the next CONNACK.
    var unsentUnsubscriptions: Set<String> = []
    /// Message ids of re-subscriptions sent after a reconnect, to name refused filters in the log.
    var resubscriptions: [Int32: [String]] = [:]
    var offlineQueue: [QueuedPublish] = []
    /// Messages published while connected that wait for room in the send window, oldest first.
    var backlog = PublishBacklog()
    /// What libmosquitto holds of the messages published (not yet written or acknowledged).
    var window = SendWindow()
    /// Messages dropped since the last connection (QoS 0 while disconnected, queue overflow).
    var droppedWhileOffline = 0
    /// The operations that wait for the broker or for the loop thread.
    var waiters = Waiters()
    var hooks: [ConnectHook] = []
    /// The hooks of the latest connection; the next run waits for it so hooks never overlap.
    var hookChain: Task<Void, Never>?
    var attempt = AttemptFacts()

    /// The error for an operation that needs a started client, or nil when the client runs.
    var notRunningError: MQTTError? {
        switch phase {
        case .idle: return .notConnected
        case .stopping, .closed: return .closed
        case .running: return nil
        }
    }
}

/// A first-in first-out queue of publishes that takes from the front in constant time. A batch that
/// must wait is kept as a slice of the caller's array, so that waiting copies no message.
struct PublishBacklog {
    private struct Chunk {
        var messages: ArraySlice<MQTTMessage>
        /// Only for a chunk of one message (`publishAndWait`).
        var completion: Completion?
    }

    private var chunks: [Chunk] = []
    private var head = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    var first: QueuedPublish? {
        guard head < chunks.count, let message = chunks[head].messages.first else { return nil }
        return QueuedPublish(message: message, completion: chunks[head].completion)
    }

    mutating func append(_ item: QueuedPublish) {
        chunks.append(Chunk(messages: [item.message][...], completion: item.completion))
        count += 1
    }

    mutating func append(contentsOf messages: ArraySlice<MQTTMessage>) {
        guard !messages.isEmpty else { return }
        chunks.append(Chunk(messages: messages, completion: nil))
        count += messages.count
    }

    mutating func removeFirst() {
        guard head < chunks.count else { return }
        count -= 1
        chunks[head].messages = chunks[head].messages.dropFirst()
        guard chunks[head].messages.isEmpty else { return }
        head += 1
        if head == chunks.count {
            chunks = []
            head = 0
        } else if head >= 64 && head * 2 >= chunks.count {
            chunks.removeFirst(head)
            head = 0
        }
    }

    /// Empties the queue and returns what it held, oldest first.
    mutating func removeAll() -> [QueuedPublish] {
        let rest = chunks[head...].flatMap { chunk in
            chunk.messages.map { QueuedPublish(message: $0, completion: chunk.completion) }
        }
        chunks = []
        head = 0
        count = 0
        return rest
    }
}
