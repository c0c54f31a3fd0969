import HomeStore

/// The following part's state (docs/ARCHITECTURE.md "The Gateway's parts"): the store's change batches
/// turned into the topics they change (`Following/`).
struct FollowingPart {
    /// The `hs` topics whose hue or saturation changed in this step.
    var hs = HSValues()
    /// What batches left for a task of its own (renamed accessories, the accessory list).
    var followUp = FollowUpWork()
    /// Batches the store delivered before the snapshot was registered (none while subscribing does not
    /// suspend, which it does not on a shared executor; kept so that order never depends on it).
    var earlyBatches: [[HomeChange]] = []
}
