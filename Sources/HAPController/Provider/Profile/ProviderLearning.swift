/// What a `HAPAccessoryProvider` learns about its accessory server: the profile kept across restarts, and
/// the verification of the live session's events that feeds it.
struct ProviderLearning: Sendable {
    /// The learned profile (loaded at `start()`, saved at every change).
    var profile = AccessoryServerProfile()
    /// Whether the live session's subscribed characteristics send their events.
    var verification = EventVerification()
}
