/// At most one log line per key (an accessory's id or instance name) per `interval`, so that a flood of
/// announcements cannot flood the log (issue "bad input from the network"). It remembers at most
/// `capacity` keys; beyond that, every further key shares one allowance, so that many different names
/// still give at most one line per interval.
struct LogLimiter: Sendable {
    let interval: Duration
    let capacity: Int
    private var lastLogged: [String: ContinuousClock.Instant] = [:]
    private var overflowLogged: ContinuousClock.Instant?

    init(interval: Duration = .seconds(60), capacity: Int = 1024) {
        self.interval = interval
        self.capacity = capacity
    }

    /// Whether a line about `key` may be logged now; if so, it counts as logged.
    mutating func allows(_ key: String, now: ContinuousClock.Instant = .now) -> Bool {
        if let last = lastLogged[key] {
            guard now - last >= interval else { return false }
            lastLogged[key] = now
            return true
        }
        if lastLogged.count >= capacity {
            lastLogged = lastLogged.filter { now - $0.value < interval }
        }
        guard lastLogged.count < capacity else {
            if let last = overflowLogged, now - last < interval { return false }
            overflowLogged = now
            return true
        }
        lastLogged[key] = now
        return true
    }
}
