/// How fast tokens may be guessed (docs/DESIGN.md "Web page"): a login form's post or a request with a
/// bearer token that is wrong is a failure. From one client address the first `freeFailures` failures
/// cost nothing; after that each makes that address wait before its next try, twice as long each time,
/// up to `longestWait`. Overall, past `overallPerMinute` failures within a minute every address that has
/// not signed in since the start waits until the minute has passed, so that many addresses cannot add up
/// to a fast guesser. A try during a wait is refused without looking at the token, so it tells nothing.
///
/// The log hears of it once per `reportInterval` at most, with the counts by address (`report`).
/// A value with transitions; `AccessGuard` keeps it under its lock.
struct LoginThrottle: Sendable {
    static let freeFailures = 3
    static let longestWait: Duration = .seconds(60)
    static let overallPerMinute = 30
    static let reportInterval: Duration = .seconds(60)
    /// An address's failures are forgotten this long after its last one.
    static let forgetAfter: Duration = .seconds(15 * 60)
    /// Addresses remembered at once (the oldest are forgotten first), and addresses that signed in.
    static let maxClients = 1024
    static let maxTrusted = 64

    private struct Client {
        var failures = 0
        var lastFailure: ContinuousClock.Instant
        var waitUntil: ContinuousClock.Instant?
        /// Since the last report: wrong tokens, and tries refused because they came too soon.
        var wrong = 0
        var early = 0
    }

    private var clients: [String: Client] = [:]
    private var trusted: [String] = []
    /// The overall failures of the last minute, oldest first (at most `overallPerMinute`).
    private var recent: [ContinuousClock.Instant] = []
    private var lastReport: ContinuousClock.Instant?

    /// Nil when `client` may try a token now, else the whole seconds it must wait.
    mutating func admit(_ client: String, at now: ContinuousClock.Instant) -> Int? {
        if let until = clients[client]?.waitUntil, until > now {
            clients[client]?.early += 1
            return Self.seconds(until - now)
        }
        recent.removeAll { now - $0 >= .seconds(60) }
        guard recent.count >= Self.overallPerMinute, !trusted.contains(client), let oldest = recent.first else {
            return nil
        }
        clients[client, default: Client(lastFailure: now)].early += 1
        return Self.seconds(oldest + .seconds(60) - now)
    }

    /// `client` tried a wrong token.
    mutating func failed(_ client: String, at now: ContinuousClock.Instant) {
        var entry = clients[client] ?? Client(lastFailure: now)
        if now - entry.lastFailure > Self.forgetAfter { entry.failures = 0 }
        entry.failures += 1
        entry.wrong += 1
        entry.lastFailure = now
        if entry.failures >= Self.freeFailures {
            let doublings = min(entry.failures - Self.freeFailures, 6)
            entry.waitUntil = now + min(.seconds(1 << doublings), Self.longestWait)
        }
        clients[client] = entry
        recent.append(now)
        if recent.count > Self.overallPerMinute { recent.removeFirst(recent.count - Self.overallPerMinute) }
        if clients.count > Self.maxClients { forget(at: now) }
    }

    /// `client` gave the right token: its failures are forgotten and the overall wait no longer holds it.
    mutating func succeeded(_ client: String) {
        if let entry = clients[client], entry.wrong == 0, entry.early == 0 {
            clients[client] = nil
        } else {
            clients[client]?.failures = 0
            clients[client]?.waitUntil = nil
        }
        trusted.removeAll { $0 == client }
        trusted.append(client)
        if trusted.count > Self.maxTrusted { trusted.removeFirst() }
    }

    /// The line for the log when there is something to say and the last report is `reportInterval` old
    /// (or there was none); nil otherwise. The counts start again after it.
    mutating func report(at now: ContinuousClock.Instant) -> String? {
        if let lastReport, now - lastReport < Self.reportInterval { return nil }
        let counted = clients.filter { $0.value.wrong + $0.value.early > 0 }
            .sorted { ($0.value.wrong + $0.value.early, $1.key) > ($1.value.wrong + $1.value.early, $0.key) }
        guard !counted.isEmpty else { return nil }
        lastReport = now
        let total = counted.reduce(0) { $0 + $1.value.wrong + $1.value.early }
        var parts = counted.prefix(5).map { address, entry in
            var part = "\(address.isEmpty ? "an unknown address" : address) (\(entry.wrong) wrong"
            if entry.early > 0 { part += ", \(entry.early) too soon" }
            if let until = entry.waitUntil, until > now { part += "; next try in \(Self.seconds(until - now)) s" }
            return part + ")"
        }
        if counted.count > 5 { parts.append("\(counted.count - 5) more addresses") }
        for (address, _) in counted {
            clients[address]?.wrong = 0
            clients[address]?.early = 0
        }
        return "web page: login tries refused (a wrong token, or too soon after one): "
            + parts.joined(separator: ", ") + "; \(total) in all"
    }

    private mutating func forget(at now: ContinuousClock.Instant) {
        clients = clients.filter { now - $0.value.lastFailure <= Self.forgetAfter }
        while clients.count > Self.maxClients,
            let oldest = clients.min(by: { $0.value.lastFailure < $1.value.lastFailure })
        {
            clients[oldest.key] = nil
        }
    }

    private static func seconds(_ duration: Duration) -> Int {
        max(1, Int((Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18).rounded(.up)))
    }
}
