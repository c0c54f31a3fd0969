public import HomeModel

extension HomeStore {
    /// Has the provider of accessory `id`, or every provider for nil, fetch its accessories and every
    /// value again (`AccessoryProvider.refresh()`); the fresh sync is reconciled as any other
    /// (`bridge/request/refresh`).
    /// - Returns: the ids of the providers refreshed, sorted.
    /// - Throws: `.notReady` before the first sync, `.unknownAccessory`, `.failed` naming each provider
    ///   that could not (the others are refreshed all the same).
    public func refresh(_ id: AccessoryID?) async throws(HomeStoreError) -> [String] {
        guard firstSync.isComplete else { throw .notReady }
        var slots: [Int]
        if let id {
            guard let entry = entries[id] else { throw .unknownAccessory(id) }
            slots = [entry.provider]
        } else {
            slots = providers.indices.filter { !providers[$0].removed }
        }
        var refreshed: [String] = []
        var failures: [String] = []
        for slot in slots {
            let provider = providers[slot].provider
            do {
                try await provider.refresh()
                refreshed.append(provider.id)
            } catch {
                failures.append("\(provider.id): \(error)")
            }
        }
        guard failures.isEmpty else { throw .failed("cannot refresh " + failures.sorted().joined(separator: "; ")) }
        return refreshed.sorted()
    }
}
