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
    ///
    /// Without a session and without a reconnect under way, a read or write asks for one: it ends the
    /// back-off (`.commandArrived`) and waits for the attempt, `demandWait` at most, or until the attempt
    /// ends once its TCP connection is open (the link is back): the first command after an outage
    /// brings the accessory back instead of failing until the back-off runs out (docs/DESIGN.md "Writes").
    ///
    /// With `deadline` (a write's), it waits until then at most, whatever the attempt under way.
    func session(after old: HAPClient? = nil, by deadline: ContinuousClock.Instant? = nil) async -> HAPClient? {
        if let client, client.connection !== old?.connection { return client }
        if let deadline, deadline <= .now { return nil }
        if machine.waitersMayWait { return await waitForSession(limit: Self.reconnectWait, by: deadline) }
        guard machine.connectsOnDemand else { return nil }
        await perform(machine.handle(.commandArrived))
        return await waitForSession(limit: Self.demandWait, by: deadline)
    }

    /// How long a read or write that found no session waits for the attempt it asked for, unless that
    /// attempt has reached the accessory's host by then.
    static let demandWait = Duration.seconds(1)
    /// How long a read or write waits for the reconnect after a drop, unless the attempt has reached the
    /// accessory's host by then: with the check of a quiet connection (`probeTimeout`) before it, well
    /// within the store's write time-out, so that a write never sent fails saying so, not as a write the
    /// accessory "did not answer" (docs/DESIGN.md "Writes").
    static let reconnectWait = Duration.seconds(5)

    /// Waits for the reconnect's client (nil: none came), `limit` at most unless the attempt under way
    /// reached the accessory's host by then; never past `deadline`.
    private func waitForSession(limit: Duration, by deadline: ContinuousClock.Instant?) async -> HAPClient? {
        let token = waiters.nextToken()
        let clock = context.clock
        Task { [weak self] in
            try? await clock.sleep(for: limit)
            await self?.endLimitedWait(token)
        }
        if let deadline {
            // The write's own deadline is the system clock's, whatever clock the provider runs on.
            Task { [weak self] in
                try? await Task.sleep(until: deadline, clock: .continuous)
                await self?.endWait(token)
            }
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<HAPClient?, Never>) in
                guard !Task.isCancelled else { return waiter.resume(returning: nil) }
                waiters.add(waiter, token: token)
            }
        } onCancel: {
            Task { await self.endWait(token) }
        }
    }

    /// The wait `token` ran out: it goes on while the attempt under way reached the accessory's host (the
    /// attempt's end resumes it), else it ends without a session.
    private func endLimitedWait(_ token: UInt64) async {
        while link.attemptReached || link.syncing != nil, !stopped {
            try? await context.clock.sleep(for: .milliseconds(100))
        }
        endWait(token)
    }

    /// The attempt under way opened its TCP connection.
    func reachedAccessory() { link.attemptReached = true }

    private func endWait(_ token: UInt64) {
        waiters.remove(token)?.resume(returning: nil)
    }

    /// Ends the reconnect under way: the waiting reads and writes go on with `client`, or fail without it.
    func reconnectEnded(with client: HAPClient?) {
        for waiter in waiters.removeAll() { waiter.resume(returning: client) }
    }
}
