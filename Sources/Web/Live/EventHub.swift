import Synchronization

/// The web page's open event streams: every live event (a value, an availability, a log line) goes to
/// each. At most `limit` streams at once, so that event streams cannot take every connection.
final class EventHub: Sendable {
    private let streams = Mutex<[ObjectIdentifier: EventStream]>([:])
    private let limit: Int
    private let queuedEvents: Int

    init(limit: Int, queuedEvents: Int) {
        self.limit = limit
        self.queuedEvents = queuedEvents
    }

    /// A new stream, nil when `limit` are open.
    func open() -> EventStream? {
        streams.withLock { open -> EventStream? in
            guard open.count < limit else { return nil }
            let stream = EventStream(limit: queuedEvents) { [weak self] in self?.forget() }
            open[ObjectIdentifier(stream)] = stream
            return stream
        }
    }

    /// Sends `event` with `json` to every open stream.
    func broadcast(_ event: String, _ json: String) {
        for stream in streams.withLock({ Array($0.values) }) { stream.send(event, json) }
    }

    /// Closes every stream.
    func closeAll() {
        for stream in streams.withLock({ Array($0.values) }) { stream.close() }
    }

    /// How many streams are open.
    var count: Int { streams.withLock { $0.count } }

    private func forget() {
        streams.withLock { open in open = open.filter { !$0.value.isClosed } }
    }
}
