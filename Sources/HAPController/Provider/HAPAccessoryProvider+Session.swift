import HomeModel
import HomeStore

/// While connected: events, polls, the keep-alive, and the reachability of single bridged accessories.
extension HAPAccessoryProvider {
    /// Runs the session on `client` until its connection closes (drop, time-out, `stop()`); returns why.
    func watch(_ client: HAPClient) async -> HAPConnectionError {
        let events = client.events
        let pollInterval = settings.pollInterval
        let keepaliveInterval = settings.keepaliveInterval
        return await withTaskGroup(of: Void.self) { group in
            group.addTask { for await batch in events { await self.received(batch) } }
            group.addTask { await Self.every(pollInterval) { await self.poll(client) } }
            group.addTask { await Self.every(keepaliveInterval) { await self.keepAlive(client) } }
            let reason = await client.connection.waitUntilClosed()
            group.cancelAll()
            return reason
        }
    }

    /// Runs `work` every `interval` until cancelled.
    private static func every(_ interval: Duration, _ work: @Sendable () async -> Void) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            guard !Task.isCancelled else { return }
            await work()
        }
    }

    /// One `EVENT/1.0`: the values as `.event` updates. An event from a bridged accessory that was
    /// unreachable brings it back first.
    func received(_ batch: [HAPEventValue]) {
        guard let index else { return }
        var updates: [ValueUpdate] = []
        var heard = Set<Int>()
        for event in batch {
            guard let id = index.accessoryID(event.id.aid), index.contains(event.id) else {
                logger.debug("event for unknown characteristic \(event.id) ignored")
                continue
            }
            heard.insert(event.id.aid)
            updates.append(ValueUpdate(
                address: CharacteristicAddress(accessory: id, iid: event.id.iid), value: index.value(event.value, for: event.id),
                source: .event))
        }
        markReachable(heard)
        if !updates.isEmpty { emit(.values(updates)) }
    }

    /// Reads the characteristics without events and reports them as `.poll` updates.
    func poll(_ client: HAPClient) async {
        guard let ids = index?.polled, !ids.isEmpty else { return }
        let results: [HAPCharacteristicID: HAPCharacteristicResult]
        do {
            results = try await client.read(ids)
        } catch {
            // A broken connection ends the session on its own; anything else is the accessory's odd answer.
            logger.debug("poll failed: \(error)")
            return
        }
        note(results)
        guard let index else { return }
        let updates = ids.compactMap { id -> ValueUpdate? in
            guard let result = results[id], result.status.isSuccess, let accessory = index.accessoryID(id.aid) else { return nil }
            return ValueUpdate(address: CharacteristicAddress(accessory: accessory, iid: id.iid), value: index.value(result.value, for: id), source: .poll)
        }
        if !updates.isEmpty { emit(.values(updates)) }
    }

    /// The keep-alive read (a request that gets no answer closes the connection, which ends the session),
    /// plus one characteristic of each bridged accessory that answered `-70402`, to notice its return.
    func keepAlive(_ client: HAPClient) async {
        guard let index else { return }
        var ids = index.keepalive.map { [$0] } ?? []
        for aid in offlineAIDs.keys.sorted() {
            if let probe = index.probe[aid], !ids.contains(probe) { ids.append(probe) }
        }
        guard !ids.isEmpty else { return }
        do {
            note(try await client.read(ids))
        } catch {
            logger.debug("keep-alive read failed: \(error)")
        }
    }

    /// Follows the reachability of single accessories in read or write answers: one that answered `-70402`
    /// and nothing else (information aside) is unreachable; one that answered is reachable.
    func note(_ results: [HAPCharacteristicID: HAPCharacteristicResult]) {
        guard let index, client != nil else { return }
        let failed = index.unreachableAIDs(in: results).filter { offlineAIDs[$0] == nil }
        markReachable(index.answeringAIDs(in: results))
        let ids = failed.sorted().compactMap(index.accessoryID)
        guard !ids.isEmpty else { return }
        for id in ids {
            offlineAIDs[id.aid] = Self.bridgedUnreachableReason
            logger.warning("accessory \(id) is unreachable behind its bridge (HAP status -70402)", ["accessory": id.description])
        }
        emit(.reachability(ids, reachable: false, reason: Self.bridgedUnreachableReason))
    }

    /// Accessories that answered or sent an event: those that were unreachable alone are back.
    private func markReachable(_ aids: Set<Int>) {
        let back = aids.filter { offlineAIDs[$0] != nil }.sorted()
        guard !back.isEmpty, let index else { return }
        for aid in back { offlineAIDs[aid] = nil }
        let ids = back.compactMap(index.accessoryID)
        for id in ids { logger.info("accessory \(id) answers again", ["accessory": id.description]) }
        if !ids.isEmpty { emit(.reachability(ids, reachable: true, reason: nil)) }
    }
}
