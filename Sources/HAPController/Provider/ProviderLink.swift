/// The connections a `HAPAccessoryProvider` holds: the live session's, the one being synced, and where
/// it reaches the accessory server.
struct ProviderLink: Sendable {
    /// The live session's client; nil while disconnected.
    var client: HAPClient?
    /// The client of a sync in progress, closed by `stop()`.
    var syncing: HAPClient?
    /// Where the live session (or the sync in progress) is connected.
    var endpoint: HAPEndpoint?
    /// The attempt under way has a TCP connection open: the accessory's host answers, so a command waiting
    /// on demand waits for the rest of the attempt.
    var attemptReached = false

    /// Every open client, to close at `stop()`.
    var clients: [HAPClient] { [client, syncing].compactMap { $0 } }
}
