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

/// Where the part's own code (the Gateway's extensions in its folder) reaches its state.
extension Gateway {
    /// The `hs` topics whose hue or saturation changed in this step.
    var hs: HSValues {
        get { parts.following.hs }
        _modify { yield &parts.following.hs }
    }

    /// What batches left for later.
    var followUp: FollowUpWork {
        get { parts.following.followUp }
        _modify { yield &parts.following.followUp }
    }

    /// Batches delivered before the snapshot was registered.
    var earlyBatches: [[HomeChange]] {
        get { parts.following.earlyBatches }
        _modify { yield &parts.following.earlyBatches }
    }
}
