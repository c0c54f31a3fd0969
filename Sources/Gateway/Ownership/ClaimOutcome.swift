/// What a gateway found when it claimed its base topic, and so what it may clear (docs/DESIGN.md "Owning
/// the base topic").
public enum ClaimOutcome: Sendable, Hashable {
    /// Nobody claimed the base topic (no retained `bridge/state`, or one without a claim): what the broker
    /// holds there was published by this state directory's gateway, or by nobody, and converges as ever.
    case free
    /// The claim is this instance's own; `wasHeld` when the run before did not release it (killed before
    /// the broker noticed, or the broker was away when it stopped).
    case own(wasHeld: Bool)
    /// Another instance's released claim, taken over: its topics are left as they are this run.
    case takenOver(from: BaseTopicClaim)

    /// Decides on the claim `found` on `base` for the gateway that claims as `own`.
    /// - Throws: `OwnershipError.claimedByAnother` when another instance holds the claim.
    public static func decide(_ found: FoundClaim, own: BaseTopicClaim, base: String) throws(OwnershipError)
        -> ClaimOutcome
    {
        switch found {
        case .none, .unclaimed: return .free
        case .claim(let owner, let held) where owner.instance == own.instance: return .own(wasHeld: held)
        case .claim(let owner, held: true): throw .claimedByAnother(base: base, owner: owner)
        case .claim(let owner, held: false): return .takenOver(from: owner)
        }
    }
}
