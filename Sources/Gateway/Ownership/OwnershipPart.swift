/// The ownership part's state (docs/ARCHITECTURE.md "The Gateway's parts"): the claim this gateway makes on
/// its base topic and what it found there at start (`Ownership/`).
struct OwnershipPart {
    /// The claim carried in `bridge/state`; nil for a gateway that claims nothing (tests of the parts
    /// alone), whose `bridge/state` is `{"state":…}` only.
    var claim: BaseTopicClaim?
    /// What `claimBaseTopic()` found; nil before it ran.
    var outcome: ClaimOutcome?
}

/// Where the part's own code (the Gateway's extensions in its folder) reaches its state.
extension Gateway {
    /// The claim carried in `bridge/state`.
    var claim: BaseTopicClaim? { parts.ownership.claim }

    /// What `claimBaseTopic()` found.
    var claimOutcome: ClaimOutcome? {
        get { parts.ownership.outcome }
        set { parts.ownership.outcome = newValue }
    }
}
