import HomeModel
import HomeStore

/// Reads and writes that arrive while a dropped connection is being replaced wait for the new one instead
/// of failing at once (docs/DESIGN.md "Availability and recovery"): accessories that close idle connections
/// drop them often, and the reconnect takes a moment.
extension HAPAccessoryProvider {
    /// The live session's client, other than `old`; while a reconnect is under way (the session dropped and
    /// the first attempt to replace it has not ended), the client it brings. nil when there is none: the
    /// attempt failed, the provider stopped, or the calling task was cancelled (the store's write
    /// time-out cancels it), in which case nothing is sent.
    func session(after old: HAPClient? = nil) async -> HAPClient? {
        if let client, client.connection !== old?.connection { return client }
        guard !stopped, client != nil || reconnecting else { return nil }
        nextWaiterToken += 1
        let token = nextWaiterToken
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<HAPClient?, Never>) in
                guard !Task.isCancelled else { return waiter.resume(returning: nil) }
                sessionWaiters[token] = waiter
            }
        } onCancel: {
            Task { await self.endWait(token) }
        }
    }

    private func endWait(_ token: UInt64) {
        sessionWaiters.removeValue(forKey: token)?.resume(returning: nil)
    }

    /// Ends the reconnect under way: the waiting reads and writes go on with `client`, or fail without it.
    func reconnectEnded(with client: HAPClient?) {
        reconnecting = false
        let waiters = sessionWaiters
        sessionWaiters = [:]
        for waiter in waiters.values { waiter.resume(returning: client) }
    }

    /// A session dropped: its accessories are reported offline only when no new session is there within
    /// `settings.offlineGrace`, so that a quick reconnect (an accessory that closed an idle connection)
    /// does not make them flap.
    func holdOfflineReport(_ ids: [AccessoryID]) {
        offlineReportGeneration += 1
        let generation = offlineReportGeneration
        let grace = settings.offlineGrace
        pendingOfflineReport = ids
        Task { [weak self] in
            try? await Task.sleep(for: grace)
            await self?.sendOfflineReport(generation)
        }
    }

    /// Sends the held offline report now, if one is held (a reconnect attempt failed, or the grace ran out).
    func sendOfflineReport(_ generation: UInt64? = nil) {
        guard generation == nil || generation == offlineReportGeneration, let ids = pendingOfflineReport else { return }
        pendingOfflineReport = nil
        guard client == nil, !ids.isEmpty else { return }
        emit(.reachability(ids, reachable: false, reason: disconnectReason))
    }

    /// Drops the held offline report: a new session is there.
    func cancelOfflineReport() {
        offlineReportGeneration += 1
        pendingOfflineReport = nil
    }
}
