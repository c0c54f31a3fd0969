public import HomeModel

extension HomeStore {
    /// Why each unreachable accessory is offline, as a code (`bridge/accessories`, the web page): its
    /// provider's reason while the provider has no connection (`ProviderDiagnostics.offlineReason`);
    /// `bridgeCannotReach` while the provider is connected, whose bridge then answered `-70402` for it;
    /// `unknown` when the provider does not say. Each provider with an unreachable accessory is asked once.
    public func offlineReasons() async -> [AccessoryID: OfflineReason] {
        let unreachable = entries.filter { !$0.value.reachable }
        guard !unreachable.isEmpty else { return [:] }
        var bySlot: [Int: OfflineReason] = [:]
        for slot in Set(unreachable.values.map(\.provider)) where providers.indices.contains(slot) {
            let diagnostics = await providers[slot].provider.diagnostics()
            bySlot[slot] =
                diagnostics.connected == true ? .bridgeCannotReach : diagnostics.offlineReason ?? .unknown
        }
        // The entries may have changed while the providers answered.
        var reasons: [AccessoryID: OfflineReason] = [:]
        for (id, entry) in entries where !entry.reachable { reasons[id] = bySlot[entry.provider] ?? .unknown }
        return reasons
    }
}
