internal import Foundation
import HomeModel

/// Applying what providers report: syncs are reconciled with what the store holds, values and
/// reachability become changes only when they differ (docs/DESIGN.md "Availability and recovery").
extension HomeStore {
    func handle(_ event: ProviderEvent, from provider: Int) {
        switch event {
        case .synced(let accessories):
            reconcile(accessories, from: provider)
            if let server = providers[provider].provider.serverID { firstSync.unlistedServers.remove(server) }
            finishFirstSync(provider)
        case .syncFailed(let reason):
            logger.warning("first sync failed", ["provider": providers[provider].provider.id, "reason": reason])
            if let server = providers[provider].provider.serverID { firstSync.unlistedServers.insert(server) }
            finishFirstSync(provider)
        case .values(let updates):
            for update in updates { apply(update, from: provider) }
        case .accessoryAdded(let accessory), .accessoryUpdated(let accessory):
            upsert(accessory, from: provider)
        case .accessoryRemoved(let id):
            guard owns(id, provider) else { return }
            remove(id)
        case .reachability(let ids, let reachable, let reason):
            for id in ids { setReachable(id, reachable, reason: reason, from: provider) }
        case .writesSettled(let readBacks):
            for readBack in readBacks { settle(readBack, from: provider) }
        }
    }

    /// Counts the accessories' events among `events` for the provider's statistics
    /// (`ProviderStatistics.swift`).
    func countEvents(_ events: [ProviderEvent], from provider: Int) {
        var count = 0
        for case .values(let updates) in events { count += updates.count(where: { $0.source == .event }) }
        guard count > 0 else { return }
        counts[provider, default: ProviderCounts()].events += count
        counts[provider, default: ProviderCounts()].lastEvent = Date()
    }

    /// A full sync: new accessories are added, missing ones removed, the others updated.
    private func reconcile(_ accessories: [Accessory], from provider: Int) {
        var seen = Set<AccessoryID>()
        for accessory in accessories {
            guard seen.insert(accessory.id).inserted else {
                logger.warning(
                    "accessory reported twice in one sync; the first one is kept",
                    ["accessory": accessory.id.description])
                continue
            }
            upsert(accessory, from: provider)
        }
        let gone = entries.filter { $0.value.provider == provider && !seen.contains($0.key) }.keys.sorted()
        for id in gone { remove(id) }
    }

    /// Adds an accessory, or updates the one with its id: `.accessoryUpdated` when its structure, name or
    /// place changed, else `.valueChanged(source: .sync)` for each value that differs.
    private func upsert(_ reported: Accessory, from provider: Int) {
        let id = reported.id
        let placement = StoredAccessory.Placement(accessory: reported)
        var accessory = reported.normalizingValues()
        let placed = place(placement, id: id)
        accessory.configuredName = placed.configuredName
        accessory.room = placed.room
        accessory.home = placed.home

        guard let existing = entries[id] else {
            var entry = StoredAccessory(accessory: accessory, placement: placement, provider: provider)
            if let early = earlyUnreachable.removeValue(forKey: id), early.provider == provider {
                entry.reachable = false
                entry.unreachableReason = early.reason
            }
            store(entry)
            emit(.accessoryAdded(accessory))
            if !entry.reachable { emit(.reachabilityChanged(id, reachable: false, reason: entry.unreachableReason)) }
            return
        }
        guard existing.provider == provider else {
            logger.warning(
                "accessory id already belongs to another provider; ignored",
                ["accessory": id.description, "provider": providers[provider].provider.id])
            return
        }
        if existing.accessory.hasSameStructure(as: accessory) {
            // A value the sync did not bring (a failed read) keeps the last known one. The changes are
            // emitted before the store holds them, which no one can see: nothing suspends in between.
            for (s, service) in accessory.services.enumerated() {
                for (c, characteristic) in service.characteristics.enumerated() {
                    let old = existing.accessory.services[s].characteristics[c].value
                    guard let value = characteristic.value else {
                        accessory.services[s].characteristics[c].value = old
                        continue
                    }
                    if value != old {
                        emit(
                            .valueChanged(
                                CharacteristicAddress(accessory: id, iid: characteristic.iid), value, source: .sync))
                    }
                }
            }
            entries[id]?.placement = placement
            entries[id]?.replaceValues(with: accessory)
        } else {
            var updated = StoredAccessory(accessory: accessory, placement: placement, provider: provider)
            updated.reachable = existing.reachable
            updated.unreachableReason = existing.unreachableReason
            store(updated)
            emit(.accessoryUpdated(old: existing.accessory, new: accessory))
        }
    }

    private func store(_ entry: StoredAccessory) {
        if !entry.duplicateIIDs.isEmpty {
            logger.warning(
                "accessory has repeated iids; the first of each is used",
                [
                    "accessory": entry.accessory.id.description,
                    "iids": entry.duplicateIIDs.map(String.init).joined(separator: ","),
                ])
        }
        entries[entry.accessory.id] = entry
    }

    private func remove(_ id: AccessoryID) {
        guard let entry = entries.removeValue(forKey: id) else { return }
        emit(.accessoryRemoved(entry.accessory))
    }

    /// One value from a provider. Equal values are no change, except events of stateless types
    /// (ProgrammableSwitchEvent): each press counts.
    private func apply(_ update: ValueUpdate, from provider: Int) {
        let address = update.address
        // The entry is read and changed in place: a read through the dictionary copies all of it (retains
        // and releases every field for every value), and a copy kept would force a copy of the
        // accessory's storage.
        guard let entry = entries.index(forKey: address.accessory),
            let outcome = entries.values[entry].setValue(update.value, iid: address.iid, from: provider)
        else {
            logger.debug("value for an unknown characteristic ignored", ["address": address.description])
            return
        }
        guard let (old, new, type) = outcome else { return }
        if update.source == .event, !writeQueues.isEmpty { noteEventDuringWrite(address) }
        emitIfChanged(address, old: old, new: new, type: type, source: update.source)
    }

    /// Marks `address` as told by an event while a write of it is in flight.
    private func noteEventDuringWrite(_ address: CharacteristicAddress) {
        guard let inFlight = writeQueues[address.accessory]?.inFlight,
            inFlight.item.writes.contains(where: { $0.address == address })
        else { return }
        writeQueues[address.accessory]?.inFlight?.changedByEvent.insert(address)
    }

    /// Stores a value and emits `.valueChanged` when it differs, is a stateless event, or was read on
    /// request.
    func setValue(
        _ value: CharacteristicValue, at address: CharacteristicAddress, _ location: StoredAccessory.Location,
        source: ValueSource
    ) {
        guard let entry = entries.index(forKey: address.accessory) else { return }
        let (old, new, type) = entries.values[entry].setValue(value, at: location)
        emitIfChanged(address, old: old, new: new, type: type, source: source)
    }

    private func emitIfChanged(
        _ address: CharacteristicAddress, old: CharacteristicValue?, new: CharacteristicValue, type: HAPType,
        source: ValueSource
    ) {
        if new != old || source == .read || (source == .event && HAPCatalog.isStateless(type)) {
            emit(.valueChanged(address, new, source: source))
        }
    }

    /// Reachability of an accessory the store does not hold yet is kept until it arrives, so that one
    /// reported offline before its sync (a provider starting from a cached structure) is never shown online.
    private func setReachable(_ id: AccessoryID, _ reachable: Bool, reason: String?, from provider: Int) {
        guard entries[id] != nil else {
            earlyUnreachable[id] = reachable ? nil : (provider, reason ?? "unreachable")
            return
        }
        guard owns(id, provider), let entry = entries[id] else { return }
        if !reachable { entries[id]?.unreachableReason = reason ?? "unreachable" }
        guard entry.reachable != reachable else { return }
        entries[id]?.reachable = reachable
        if reachable { entries[id]?.unreachableReason = nil }
        emit(.reachabilityChanged(id, reachable: reachable, reason: reachable ? nil : reason))
    }

    func owns(_ id: AccessoryID, _ provider: Int) -> Bool {
        guard let entry = entries[id] else {
            logger.debug("event for an unknown accessory ignored", ["accessory": id.description])
            return false
        }
        return entry.provider == provider
    }
}
