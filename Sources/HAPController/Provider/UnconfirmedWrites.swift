import HomeModel
import HomeStore

/// Writes that went out on a connection that then gave no answer (docs/DESIGN.md "Writes"): the accessory
/// may or may not have carried them out. Each is read back once a later session is synced, after the
/// write's own connection was reset (nothing of it can arrive any more), and the value read settles it
/// (`ProviderEvent.writesSettled`).
struct UnconfirmedWrites: Sendable {
    /// One unconfirmed write of one characteristic.
    struct Entry: Sendable, Hashable {
        let address: CharacteristicAddress
        let written: CharacteristicValue
        /// The number of the session the write went out on (`ProviderConnectionStateMachine.sessionsInstalled`):
        /// the read-back must come from a later one.
        let session: Int
    }

    /// The most kept; an accessory that never answers again must not grow memory without bound.
    static let limit = 256

    private var entries: [HAPCharacteristicID: Entry] = [:]

    var isEmpty: Bool { entries.isEmpty }

    /// Keeps the write of `written` to `id` (`address`) sent on session `session`; a newer write to it
    /// replaces an older one.
    mutating func add(
        _ id: HAPCharacteristicID, address: CharacteristicAddress, written: CharacteristicValue, session: Int
    ) {
        guard entries[id] != nil || entries.count < Self.limit else { return }
        entries[id] = Entry(address: address, written: written, session: session)
    }

    /// A later write to `id` was answered: what it holds now says nothing about the older write.
    mutating func forget(_ id: HAPCharacteristicID) { entries[id] = nil }

    /// The characteristics to read back on session `session`: those written on an earlier one.
    func due(on session: Int) -> [HAPCharacteristicID] {
        entries.filter { $0.value.session < session }.keys.sorted { ($0.aid, $0.iid) < ($1.aid, $1.iid) }
    }

    /// Takes the entries of `ids` that were read back.
    mutating func take(_ ids: [HAPCharacteristicID]) -> [(HAPCharacteristicID, Entry)] {
        ids.compactMap { id in entries.removeValue(forKey: id).map { (id, $0) } }
    }
}
