/// Why an accessory is `offline`, as a code for programs (`offline_reason` in `bridge/health`,
/// `bridge/accessories` and the web page; docs/DESIGN.md "Availability and recovery"). The human
/// reason, with the last error, stays beside it.
public enum OfflineReason: String, Sendable, Hashable, CaseIterable {
    /// The gateway has not connected to its accessory server yet since it started.
    case notConnectedYet = "not_connected_yet"
    /// The connection dropped and is being replaced.
    case connectionLost = "connection_lost"
    /// The accessory server's host does not answer: no TCP connection opens (it is off, or the network
    /// is down).
    case unreachable
    /// A TCP connection opens, but pair-verify or the sync fails (the accessory answers wrongly, or too
    /// slowly).
    case connectionFailed = "connection_failed"
    /// The accessory no longer accepts this controller (reset, or removed by another controller): pair
    /// again.
    case pairingRejected = "pairing_rejected"
    /// The gateway's own identity (`controller.json`) cannot be loaded.
    case identityUnusable = "identity_unusable"
    /// The pairing's file in the state directory cannot be read.
    case pairingUnreadable = "pairing_unreadable"
    /// Its bridge is connected but answers `-70402` for it: the bridge cannot reach it.
    case bridgeCannotReach = "bridge_cannot_reach"
    /// The gateway stopped its connection.
    case stopped
    /// The provider does not say why.
    case unknown
}
