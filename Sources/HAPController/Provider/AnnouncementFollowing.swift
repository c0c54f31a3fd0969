/// What a `HAPAccessoryProvider` knows from following its accessory server's DNS-SD announcements
/// (`HAPAccessoryProvider+Discovery.swift`): where it was last reached, the last announcement, the
/// addresses that did not prove the accessory, and the numbers the live session was synced at.
struct AnnouncementFollowing: Sendable {
    /// Where the accessory server was last reached: the pairing's address at first, then wherever it was
    /// followed to. The fallback when nothing is announced.
    var address: HAPEndpoint
    /// Its last announcement.
    var announcement: HAPAdvertisement?
    /// Announced addresses where pair-verify did not prove the paired accessory, and when: not tried
    /// again for `HAPAccessoryProvider.unverifiableLifetime`.
    var unverifiable: [HAPEndpoint: ContinuousClock.Instant] = [:]
    /// Addresses already logged as not proving the accessory (each is logged once).
    var reportedUnverifiable: Set<HAPEndpoint> = []
    /// The `c#` and `s#` the accessories and values of the live session were read at, when known.
    var syncedNumbers: (configuration: Int?, state: Int?) = (nil, nil)
    /// A re-fetch or re-read asked for by an announcement: running, and whether another is wanted.
    var work: (running: Bool, again: Bool) = (false, false)

    init(address: HAPEndpoint) { self.address = address }
}
