import HomeModel
import HomeStore

/// While connected: events, polls, the keep-alive, and the reachability of single bridged accessories.
extension HAPAccessoryProvider {
    /// Runs the session on `client` until its connection closes (drop, time-out, `stop()`); returns why.
    func watch(_ client: HAPClient) async -> HAPConnectionError {
        let events = client.events
        let pollInterval = settings.pollInterval
        let keepaliveInterval = learning.profile.keepalive(configured: settings.keepaliveInterval)
        let catchupInterval = settings.catchupInterval
        return await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await batch in events {
                    // The values are handed to the store from this task, not from inside the provider's
                    // actor: the store's executor runs the store on the handing thread when it is idle
                    // (HomeStore's StoreExecutor), and the provider must stay free for writes meanwhile.
                    let (values, heard) = await self.updates(in: batch)
                    if let values { self.events.push(values) }
                    await self.markReachable(heard)
                }
            }
            group.addTask { await Self.every(pollInterval) { await self.poll(client, \.polled) } }
            group.addTask { await Self.every(catchupInterval) { await self.poll(client, \.caughtUp) } }
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

    /// One `EVENT/1.0`: the values as `.event` updates (nil when none is known, or once stopped), and
    /// the aids heard from. An event from a bridged accessory that was unreachable then brings it back
    /// (`markReachable(_:)`), after its values were read again.
    func updates(in batch: [HAPEventValue]) -> (ProviderEvent?, heard: Set<Int>) {
        guard let index, !stopped else { return (nil, []) }
        var updates: [ValueUpdate] = []
        var heard = Set<Int>()
        for event in batch {
            guard let id = index.accessoryID(event.id.aid), index.contains(event.id) else {
                logger.debug("event for unknown characteristic \(event.id) ignored")
                continue
            }
            heard.insert(event.id.aid)
            learning.verification.heard(event.id, event.value)
            let value: CharacteristicValue?
            switch index.decoded(event.value, for: event.id) {
            case .success(let decoded): value = decoded
            case .failure(let mismatch):
                noteUnreadableValue(event.id, mismatch)
                continue
            }
            updates.append(
                ValueUpdate(
                    address: CharacteristicAddress(accessory: id, iid: event.id.iid), value: value, source: .event))
        }
        return (updates.isEmpty ? nil : .values(updates), heard)
    }

    /// Reads one list of the index (the characteristics without events, or those with events at the
    /// catch-up interval) and reports the values as `.poll` updates.
    func poll(_ client: HAPClient, _ list: KeyPath<AccessoryIndex, [HAPCharacteristicID]>) async {
        guard let ids = index?[keyPath: list], !ids.isEmpty else { return }
        await readAndReport(ids, on: client, purpose: "poll")
    }

    /// Reads `ids` and reports the values that were read as `.poll` updates (the store passes on those
    /// that changed); `purpose` names the read in the log when it fails.
    /// - Returns: how many values were read.
    @discardableResult
    func readAndReport(_ ids: [HAPCharacteristicID], on client: HAPClient, purpose: String) async -> Int {
        let results: [HAPCharacteristicID: HAPCharacteristicResult]
        do {
            results = try await readInBatches(ids, on: client)
        } catch {
            // A broken connection ends the session on its own; anything else is the accessory's odd answer.
            logger.debug("\(purpose) failed: \(error)")
            return 0
        }
        let count = emitPolled(ids, results)
        await note(results)
        return count
    }

    /// The successful answers among `results` for `ids`, as `.poll` updates.
    /// - Returns: how many there were.
    @discardableResult
    private func emitPolled(_ ids: [HAPCharacteristicID], _ results: [HAPCharacteristicID: HAPCharacteristicResult])
        -> Int
    {
        guard let index else { return 0 }
        var updates: [ValueUpdate] = []
        for id in ids {
            guard let result = results[id], result.status.isSuccess, let accessory = index.accessoryID(id.aid) else {
                continue
            }
            switch index.decoded(result.value, for: id) {
            case .success(let value):
                updates.append(
                    ValueUpdate(
                        address: CharacteristicAddress(accessory: accessory, iid: id.iid), value: value, source: .poll))
            case .failure(let mismatch): noteUnreadableValue(id, mismatch)
            }
        }
        if !updates.isEmpty { emit(.values(updates)) }
        return updates.count
    }

    /// The keep-alive read (a request that gets no answer closes the connection, which ends the session),
    /// plus one characteristic of each bridged accessory that answered `-70402`, to notice its return.
    /// Characteristics found changed without their event are judged first (`judgeEvents()`).
    func keepAlive(_ client: HAPClient) async {
        judgeEvents()
        guard let index else { return }
        var ids = index.keepalive.map { [$0] } ?? []
        for aid in bridged.aids {
            if let probe = index.probe[aid], !ids.contains(probe) { ids.append(probe) }
        }
        guard !ids.isEmpty else { return }
        do {
            await note(try await client.read(ids))
        } catch {
            logger.debug("keep-alive read failed: \(error)")
        }
    }

    /// Follows the reachability of single accessories in read or write answers: one that answered `-70402`
    /// and nothing else (information aside) is unreachable; one that answered is reachable.
    func note(_ results: [HAPCharacteristicID: HAPCharacteristicResult]) async {
        guard let index, client != nil else { return }
        markUnreachable(index.unreachableAIDs(in: results).filter { !bridged.isUnreachable($0) })
        await markReachable(index.answeringAIDs(in: results))
    }

    private func markUnreachable(_ aids: Set<Int>) {
        guard let index else { return }
        let ids = aids.sorted().compactMap(index.accessoryID)
        guard !ids.isEmpty else { return }
        bridged.markUnreachable(ids.map(\.aid))
        for id in ids {
            logger.warning(
                "accessory \(id) is unreachable behind its bridge (HAP status -70402)", ["accessory": id.description])
        }
        emit(.reachability(ids, reachable: false, reason: Self.bridgedUnreachableReason))
    }

    /// Accessories that answered or sent an event: those that were unreachable alone are back, once every
    /// value of theirs was read again (docs/DESIGN.md "Availability and recovery"): while one was offline
    /// its values may have changed unseen, or a refused write may have been carried out after all.
    func markReachable(_ aids: Set<Int>) async {
        let back = Set(aids.filter { bridged.isUnreachable($0) })
        guard !back.isEmpty, let index, let client else { return }
        // Claimed now, so that an answer arriving during the read does not read them again.
        bridged.markReachable(back)
        let ids = index.stateful(of: back)
        let results: [HAPCharacteristicID: HAPCharacteristicResult]
        do {
            results = try await readInBatches(ids, on: client)
        } catch {
            // A broken connection ends the session, which takes every accessory offline.
            bridged.markUnreachable(back)
            logger.debug("reading the values of returning accessories failed: \(error)")
            return
        }
        guard self.client != nil else { return }
        emitPolled(ids, results)
        let stillDown = index.unreachableAIDs(in: results)
        bridged.markUnreachable(stillDown)
        let returned = back.subtracting(stillDown).sorted().compactMap(index.accessoryID)
        for id in returned { logger.info("accessory \(id) answers again", ["accessory": id.description]) }
        if !returned.isEmpty { emit(.reachability(returned, reachable: true, reason: nil)) }
    }

    /// Logs a value the accessory sent that its characteristic's format cannot carry (`"banana"` for a
    /// bool), which is dropped: at most one line a minute per accessory server, with how many were not.
    func noteUnreadableValue(_ id: HAPCharacteristicID, _ mismatch: HAPModelError) {
        if let line = logLimits.unreadableValues.line(
            "ignored a value of \(displayName) for \(id): \(mismatch)", about: "value")
        {
            logger.warning("\(line)")
        }
    }
}
