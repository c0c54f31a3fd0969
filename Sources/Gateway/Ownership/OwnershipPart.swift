import MQTT

/// The ownership part's state (docs/ARCHITECTURE.md "The Gateway's parts"): the claim this gateway makes on
/// its base topic and what it found there at start (`Ownership/`).
struct OwnershipPart {
    /// The claim carried in `bridge/state`; nil for a gateway that claims nothing (tests of the parts
    /// alone), whose `bridge/state` is `{"state":…}` only.
    var claim: BaseTopicClaim?
    /// What `claimBaseTopic()` found; nil before it ran.
    var outcome: ClaimOutcome?
    /// The gateway that holds the base topic now, found after a reconnect: this one lost its claim
    /// (its last will was published while it was cut off, and the other took over) and publishes nothing
    /// more.
    var lostTo: BaseTopicClaim?
    /// Called once when the claim is lost, with the line to print.
    var onLost: (@Sendable (_ reason: String) -> Void)?
}

/// What the core may ask of this part.
extension Gateway {
    /// Whether this gateway still holds its base topic: false once another took it over while this one
    /// was cut off, when `bridge/state` and availability are the other's to say.
    var holdsBaseTopic: Bool { parts.ownership.lostTo == nil }

    /// Whether this run took the base topic over from another instance, whose topics it leaves alone.
    var tookBaseTopicOver: Bool {
        if case .takenOver? = parts.ownership.outcome { return true }
        return false
    }

    /// `bridge/state` offline, with this gateway's claim released, as `stop()` publishes it.
    var offlineState: MQTTMessage { Gateway.lastWill(baseTopic: configuration.baseTopic, claim: parts.ownership.claim) }
}
