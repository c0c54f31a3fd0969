/// What a `HAPAccessoryProvider` works with and never changes: the controller it connects through, the
/// cache of its accessory list and its learned profile, DNS-SD, the clock, and the wake-up of its back-off.
struct ProviderContext: Sendable {
    let controller: HAPController
    let cache: AccessoryCache
    /// Where its learned profile is kept.
    let profileFile: AccessoryProfileFile
    /// The announcements of the accessory server, when the gateway browses DNS-SD.
    let discovery: HAPDiscovery?
    let clock: any ProviderClock
    /// Ends the back-off early (an announcement, a command).
    let wakeup = Wakeup()
    /// Why the pairing cannot be used (its file is damaged); such a provider never connects.
    let unreadableReason: String?
}
