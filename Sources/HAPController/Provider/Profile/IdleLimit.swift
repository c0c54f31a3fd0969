/// What a provider learns about an accessory that ends quiet connections (docs/hap-notes.md §7.8): the
/// shortest quiet time after which it closed or dropped one, and the keep-alive that stays below it. Part
/// of the accessory server's learned profile (`AccessoryServerProfile`).
///
/// Closes are measured by `HAPConnection.quietBeforeClose`. A connection that ended after less than
/// `shortestQuiet` of quiet was busy, and says nothing about idleness.
struct IdleLimit: Sendable, Hashable {
    /// The shortest quiet time seen before an accessory ended a connection; nil until one did.
    private(set) var observed: Duration?

    /// Quiet times shorter than this are not taken for an idle time-out.
    static let shortestQuiet = Duration.seconds(1)

    /// Takes the quiet time before a connection ended.
    /// - Returns: true when it is a new, shorter limit.
    mutating func learn(quiet: Duration) -> Bool {
        guard quiet >= Self.shortestQuiet, observed.map({ quiet < $0 }) ?? true else { return false }
        observed = quiet
        return true
    }

    /// The keep-alive interval to use: `configured`, or half the observed limit when that is shorter, so
    /// that a keep-alive late by up to half the limit still comes in time.
    func keepalive(configured: Duration) -> Duration {
        guard let observed else { return configured }
        return min(configured, observed / 2)
    }
}
