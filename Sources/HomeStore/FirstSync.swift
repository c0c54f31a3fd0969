/// The home store's first sync: complete once every provider added before `start()` has reported its
/// first sync or its failure; until then nothing is published and commands are refused (docs/DESIGN.md
/// lesson 1).
struct FirstSync {
    /// The first sync is complete (a store with no providers is complete at once).
    var isComplete = true
    /// The provider slots whose first sync has not been reported yet.
    var awaiting: Set<Int> = []
    /// The callers of `waitUntilReady()`, resumed when it completes or the store stops.
    var waiters: [CheckedContinuation<Void, Never>] = []
    /// The servers of providers whose first sync failed and that have not synced since
    /// (`HomeStore.serversWithoutAccessoryList`).
    var unlistedServers: Set<String> = []
}

extension HomeStore {
    /// Where a store is in its life.
    enum Phase: Equatable {
        /// Made, providers may be added; `start()` not called.
        case notStarted
        /// Started: providers run and report.
        case running
        /// `stop()` was called: for good.
        case stopped
    }
}
