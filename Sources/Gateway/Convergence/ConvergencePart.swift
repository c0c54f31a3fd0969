/// The convergence part's state (docs/ARCHITECTURE.md "The Gateway's parts"): the start-up scan of what
/// the broker holds and the clearing of what no longer belongs (`Convergence/`).
struct ConvergencePart {
    /// Whether this run leaves alone what an earlier run published: the state directory had no slug map
    /// while the broker held an earlier run's accessories (`Gateway+Convergence.swift`).
    var leavesEarlierRun = false
}

/// What the core asks of this part.
extension Gateway {
    /// Leaves what an earlier run published alone for this run: another instance published it.
    func leaveEarlierRunAlone() { parts.convergence.leavesEarlierRun = true }
}
