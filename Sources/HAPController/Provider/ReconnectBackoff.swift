import SystemSupport

/// The delays between reconnection attempts to an accessory server: exponential back-off with jitter
/// (docs/DESIGN.md "Availability and recovery": 0.5 s growing to 60 s).
///
/// The n-th failure in a row waits `initial · 2^(n-1)`, capped at `maximum`, multiplied by a random factor
/// in `1 ± jitter` so that many controllers (or many accessories behind one restarted router) do not retry
/// in step; the result never leaves `initial...maximum`. Every failed attempt counts, including a
/// connection that was made and then reset during pair-verify (aiohomekit#599: without that, a bridge
/// that resets mid-verify is retried in a tight loop). `reset()` after a good sync starts again at
/// `initial`.
public struct ReconnectBackoff: Sendable, Hashable {
    /// The delay after the first failure.
    public let initial: Duration
    /// The longest delay.
    public let maximum: Duration
    /// The relative spread of the random factor, 0 (none) to 1.
    public let jitter: Double
    /// Failed attempts since the last `reset()`.
    public private(set) var failures = 0

    /// A schedule; the defaults are docs/DESIGN.md's 0.5 s to 60 s, with ±20 % jitter.
    public init(initial: Duration = .milliseconds(500), maximum: Duration = .seconds(60), jitter: Double = 0.2) {
        self.initial = initial
        self.maximum = max(maximum, initial)
        self.jitter = min(max(jitter, 0), 1)
    }

    /// The delay before jitter after `failures` failures in a row (at least 1): `initial · 2^(failures-1)`,
    /// at most `maximum`.
    public func baseDelay(afterFailures failures: Int) -> Duration {
        let doublings = min(max(failures, 1) - 1, 62)
        let seconds = initial.inSeconds * Double(UInt64(1) << UInt64(doublings))
        return .seconds(min(seconds, maximum.inSeconds))
    }

    /// Counts one more failure and returns the delay to wait before the next attempt.
    public mutating func nextDelay<Generator: RandomNumberGenerator>(using generator: inout Generator) -> Duration {
        failures += 1
        let base = baseDelay(afterFailures: failures).inSeconds
        let factor = jitter > 0 ? Double.random(in: (1 - jitter)...(1 + jitter), using: &generator) : 1
        return .seconds(min(max(base * factor, initial.inSeconds), maximum.inSeconds))
    }

    /// `nextDelay(using:)` with the system's random numbers.
    public mutating func nextDelay() -> Duration {
        var generator = SystemRandomNumberGenerator()
        return nextDelay(using: &generator)
    }

    /// Starts again at `initial` (after a good sync).
    public mutating func reset() { failures = 0 }
}
