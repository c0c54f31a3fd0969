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
        guard machine.waitersMayWait else { return nil }
        let token = waiters.nextToken()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<HAPClient?, Never>) in
                guard !Task.isCancelled else { return waiter.resume(returning: nil) }
                waiters.add(waiter, token: token)
            }
        } onCancel: {
            Task { await self.endWait(token) }
        }
    }

    private func endWait(_ token: UInt64) {
        waiters.remove(token)?.resume(returning: nil)
    }

    /// Ends the reconnect under way: the waiting reads and writes go on with `client`, or fail without it.
    func reconnectEnded(with client: HAPClient?) {
        for waiter in waiters.removeAll() { waiter.resume(returning: client) }
    }
}
