/// Which refusals of commands reach the log (docs/DESIGN.md "Hostile input"): the first refusal on a topic
/// is logged, and further ones on the same topic within `interval` are only counted, the count going out
/// with the next line logged for that topic. A client that sends the same bad command thousands of times
/// so costs one line a minute instead of megabytes of log.
///
/// The topics it remembers are bounded by `maxTopics`: past that, refusals on topics it does not know
/// share one entry, so that commands to ever new topics cannot make it grow either.
struct RefusalLog {
    /// The shortest time between two lines for one topic.
    static let interval = Duration.seconds(60)
    /// The most topics followed one by one.
    static let maxTopics = 512
    /// The key under which refusals on topics beyond `maxTopics` are counted.
    static let otherTopics = "*"

    private struct Entry {
        var loggedAt: ContinuousClock.Instant
        var suppressed: Int
    }

    private var entries: [String: Entry] = [:]

    /// The line to log for a refusal on `topic` at `now`, or nil when it is only counted. The line is
    /// `line` with the number of refusals on the topic that were not logged since the last line.
    mutating func admit(_ line: String, topic: String, now: ContinuousClock.Instant = .now) -> String? {
        var key = topic
        if entries[key] == nil, entries.count >= Self.maxTopics {
            entries = entries.filter { now - $0.value.loggedAt < Self.interval }
            if entries.count >= Self.maxTopics { key = Self.otherTopics }
        }
        guard let entry = entries[key], now - entry.loggedAt < Self.interval else {
            let suppressed = entries[key]?.suppressed ?? 0
            entries[key] = Entry(loggedAt: now, suppressed: 0)
            guard suppressed > 0 else { return line }
            return line + " (and \(suppressed) more refused on this topic since its last line, not logged)"
        }
        entries[key]?.suppressed += 1
        return nil
    }
}
