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

/// Where the part's own code (the Gateway's extensions in its folder) reaches its state.
extension Gateway {
    /// The claim carried in `bridge/state`.
    var claim: BaseTopicClaim? { parts.ownership.claim }

    /// The gateway that took the base topic over while this one was cut off; nil while the claim is
    /// this one's.
    var claimLostTo: BaseTopicClaim? { parts.ownership.lostTo }

    /// What `claimBaseTopic()` found.
    var claimOutcome: ClaimOutcome? {
        get { parts.ownership.outcome }
        set { parts.ownership.outcome = newValue }
    }
}
