public import Foundation

/// What a provider says about its connection, for `bridge/health` and the web page: whatever it knows;
/// the defaults mean it does not say (the in-memory provider of the tests).
public struct ProviderDiagnostics: Sendable, Hashable {
    /// Whether its connection to the accessory server is open now; nil when it has none to speak of.
    public var connected: Bool?
    /// Where it reaches the accessory server (`host:port`); nil when it does not say.
    public var address: String?
    /// How often it connected again after a connection was lost.
    public var reconnects: Int
    /// Why it has no connection, while it has none; nil when it is connected or does not say.
    public var offlineReason: OfflineReason?
    /// What it learned about how its accessory server misbehaves; nil when it does not say.
    public var profile: LearnedProfile?

    public init(
        connected: Bool? = nil, address: String? = nil, reconnects: Int = 0, offlineReason: OfflineReason? = nil,
        profile: LearnedProfile? = nil
    ) {
        self.connected = connected
        self.address = address
        self.reconnects = reconnects
        self.offlineReason = offlineReason
        self.profile = profile
    }
}

/// One provider's (accessory server's) counts since the store started, with its diagnostics
/// (`HomeStore.providerStatistics()`, `bridge/health`).
public struct ProviderStatistics: Sendable, Hashable {
    /// The provider's id (`hap:AA:BB:CC:DD:EE:FF`).
    public var providerID: String
    /// How many accessories it has in the store.
    public var accessories: Int
    /// Whether any of them is reachable now.
    public var reachable: Bool
    /// Characteristic reads sent to it (each characteristic counts once).
    public var reads = 0
    /// Characteristic writes sent to it, and those not sent because their accessory was unreachable.
    public var writes = 0
    /// Of those, the ones that failed (refused, timed out, unreachable, not sent).
    public var failedWrites = 0
    /// Values it reported as events (HAP `EVENT/1.0`).
    public var events = 0
    /// When the last of those came; nil before the first.
    public var lastEvent: Date?
    /// What the provider says about its connection.
    public var diagnostics = ProviderDiagnostics()

    public init(providerID: String, accessories: Int, reachable: Bool) {
        self.providerID = providerID
        self.accessories = accessories
        self.reachable = reachable
    }
}

extension AccessoryProvider {
    /// Says nothing: a provider that knows its connection implements it.
    public func diagnostics() async -> ProviderDiagnostics { ProviderDiagnostics() }

    /// Cannot: a provider that can fetch everything again implements it.
    public func refresh() async throws(AccessoryError) {
        throw .failed("\(id) cannot fetch its accessories again")
    }
}

/// The counts the store keeps per provider slot.
struct ProviderCounts: Sendable {
    var reads = 0
    var writes = 0
    var failedWrites = 0
    var events = 0
    var lastEvent: Date?
}

extension HomeStore {
    /// Each provider's counts since the store started, with its diagnostics, sorted by provider id.
    public func providerStatistics() async -> [ProviderStatistics] {
        var result: [ProviderStatistics] = []
        for (slot, entry) in providers.enumerated() where !entry.removed {
            let owned = entries.values.filter { $0.provider == slot }
            var statistics = ProviderStatistics(
                providerID: entry.provider.id, accessories: owned.count, reachable: owned.contains { $0.reachable })
            let counts = counts[slot] ?? ProviderCounts()
            statistics.reads = counts.reads
            statistics.writes = counts.writes
            statistics.failedWrites = counts.failedWrites
            statistics.events = counts.events
            statistics.lastEvent = counts.lastEvent
            result.append(statistics)
        }
        for index in result.indices {
            guard let slot = providers.firstIndex(where: { !$0.removed && $0.provider.id == result[index].providerID })
            else { continue }
            result[index].diagnostics = await providers[slot].provider.diagnostics()
        }
        return result.sorted { $0.providerID < $1.providerID }
    }
}
