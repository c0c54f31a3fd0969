/// What a measuring client waits for. `BareClient` shows it every message it receives, on its loop
/// thread, time-stamped on arrival, until it says it is fulfilled.
protocol Expectation: Sendable {
    /// Looks at one message; returns true when the expectation is fulfilled.
    mutating func observe(topic: String, payload: UnsafeRawBufferPointer, at time: UInt64) -> Bool
    /// What has arrived so far, in words, for the error after a time-out.
    var progress: String { get }
}

/// Fulfilled by the first message on each of the given topics; keeps each one's arrival time.
struct TopicsExpectation: Expectation {
    var waiting: Set<String>
    private(set) var arrivals: [String: UInt64] = [:]
    private(set) var payloads: [String: [UInt8]] = [:]

    init(_ topics: some Sequence<String>) { waiting = Set(topics) }

    mutating func observe(topic: String, payload: UnsafeRawBufferPointer, at time: UInt64) -> Bool {
        if waiting.remove(topic) != nil {
            arrivals[topic] = time
            payloads[topic] = Array(payload)
        }
        return waiting.isEmpty
    }

    var progress: String { "still waiting for \(waiting.sorted().prefix(5).joined(separator: ", "))" }
}

/// The state messages of a burst of value changes, as the gateway publishes them under `base`:
/// `count` characteristic messages (`<base>/<accessory>/<service>/<characteristic>`) and, for every
/// accessory that had one, an accessory JSON message (`<base>/<accessory>`) that arrives after that
/// accessory's last characteristic message (so it carries the final values). Other topics (bridge,
/// availability, results) are not counted. Every counted message is recorded, so that the baseline can
/// publish exactly the same ones.
struct StateBurstExpectation: Expectation {
    let prefix: String
    let count: Int
    private(set) var characteristicMessages = 0
    private(set) var accessoryMessages = 0
    /// Accessories whose last characteristic message has no accessory JSON message after it yet.
    private var awaitingJSON = Set<Substring>()
    private(set) var recorded: [RecordedMessage] = []
    private(set) var first: UInt64?
    private(set) var last: UInt64 = 0

    init(base: String, count: Int) {
        prefix = base + "/"
        self.count = count
        recorded.reserveCapacity(count * 2)
    }

    mutating func observe(topic: String, payload: UnsafeRawBufferPointer, at time: UInt64) -> Bool {
        guard topic.hasPrefix(prefix) else { return false }
        let rest = topic.utf8.dropFirst(prefix.utf8.count)
        let levels = rest.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard let accessory = levels.first.flatMap(Substring.init), accessory != "bridge" else { return isDone }
        switch levels.count {
        case 1:
            accessoryMessages += 1
            awaitingJSON.remove(accessory)
        case 3:
            characteristicMessages += 1
            awaitingJSON.insert(accessory)
        default:
            return isDone
        }
        recorded.append(RecordedMessage(topic: topic, payload: Array(payload)))
        if first == nil { first = time }
        last = time
        return isDone
    }

    var isDone: Bool { characteristicMessages >= count && awaitingJSON.isEmpty }

    var progress: String {
        "\(characteristicMessages) of \(count) characteristic messages, \(accessoryMessages) accessory messages, "
            + "\(awaitingJSON.count) accessories without their last JSON (\(awaitingJSON.sorted().prefix(3).joined(separator: ", ")))"
    }
}

/// A message to publish again: its topic and payload bytes.
struct RecordedMessage: Sendable {
    var topic: String
    var payload: [UInt8]
}
