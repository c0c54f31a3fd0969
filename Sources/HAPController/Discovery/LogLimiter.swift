/// At most one log line per key (an accessory's id or instance name; a kind of bad input) per `interval`,
/// so that a flood of announcements, unreadable events or values cannot flood the log (docs/DESIGN.md
/// "Hostile input"). It remembers at most
/// `capacity` keys; beyond that, every further key shares one allowance, so that many different names
/// still give at most one line per interval.
struct LogLimiter: Sendable {
    let interval: Duration
    let capacity: Int
    private var lastLogged: [String: ContinuousClock.Instant] = [:]
    /// Lines about a remembered key that were held back since its last line (`line(_:about:)`).
    private var heldBack: [String: Int] = [:]
    private var overflowLogged: ContinuousClock.Instant?

    init(interval: Duration = .seconds(60), capacity: Int = 1024) {
        self.interval = interval
        self.capacity = capacity
    }

    /// Whether a line about `key` may be logged now; if so, it counts as logged.
    mutating func allows(_ key: String, now: ContinuousClock.Instant = .now) -> Bool {
        if let last = lastLogged[key] {
            guard now - last >= interval else {
                heldBack[key, default: 0] += 1
                return false
            }
            lastLogged[key] = now
            return true
        }
        if lastLogged.count >= capacity {
            lastLogged = lastLogged.filter { now - $0.value < interval }
            heldBack = heldBack.filter { lastLogged[$0.key] != nil }
        }
        guard lastLogged.count < capacity else {
            if let last = overflowLogged, now - last < interval { return false }
            overflowLogged = now
            return true
        }
        lastLogged[key] = now
        return true
    }

    /// `text` when a line about `key` may be logged now, with how many were held back since the last
    /// one; nil when it is held back (and counted). `text` is made only when it is logged.
    mutating func line(_ text: @autoclosure () -> String, about key: String, now: ContinuousClock.Instant = .now)
        -> String?
    {
        guard allows(key, now: now) else { return nil }
        guard let count = heldBack.removeValue(forKey: key), count > 0 else { return text() }
        return text() + " (and \(count) more since the last line, not logged)"
    }
}
