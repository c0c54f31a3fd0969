extension HAPConnection {
    /// Why the connection closed; nil while it is open.
    public var closeReason: HAPConnectionError? { end.reason }

    /// How long the accessory had been quiet when the connection ended, for the ends that an idle time-out
    /// on its side explains (docs/hap-notes.md §7.8): for a close or reset by the accessory, from its last
    /// bytes to the close; for a request it never answered (a connection dropped without a word), from
    /// its last bytes to that request. nil while open and for every other end.
    public var quietBeforeClose: Duration? { end.quietBeforeEnd }

    /// How long the accessory has sent nothing (no answer, no event), counted from the connection's start:
    /// a connection dropped without a FIN looks like one quiet for long (docs/DESIGN.md "Writes").
    public var quietTime: Duration { ContinuousClock.now - reader.lastReceived }

    /// Waits until the connection closes and returns why (at once when it is closed already).
    public func waitUntilClosed() async -> HAPConnectionError {
        if let reason = end.reason { return reason }
        return await withCheckedContinuation { end.waiters.append($0) }
    }

    /// Closes the connection. The request in flight fails with `.closed`, queued ones with `.notSent`;
    /// `events` finishes.
    /// Calling it again does nothing.
    public func close() { shutDown(.closed) }

    /// Ends the connection for `why`, once: closes the socket, fails the request in flight and the queued
    /// ones, finishes `events` and wakes `waitUntilClosed()`.
    func shutDown(_ why: HAPConnectionError) {
        guard end.reason == nil else { return }
        end.reason = why
        switch why {
        case .connectionLost(.closedByPeer), .connectionLost(.reset):
            end.quietBeforeEnd = ContinuousClock.now - reader.lastReceived
        case .requestTimedOut:
            if let entry = inFlight { end.quietBeforeEnd = (entry.deadline - entry.limit) - reader.lastReceived }
        default:
            break
        }
        if watchdogWake != nil { RequestDeadlines.shared.forget(self) }
        watchdogWake = nil
        // The reader first: closing the socket wakes the read loop, which would otherwise fail the request in
        // flight with a plain `.closed` before it learns the real reason (a time-out, say).
        reader.end(why)
        // A request without an answer may still sit unsent in the kernel (a link that is down): a reset
        // drops it, so that the accessory cannot carry out, once the link is back, what was reported failed.
        if case .requestTimedOut = why { tcp.abort() } else { tcp.close() }
        let queued = turns.queue
        turns.queue = []
        // They never went out: saying that the accessory did not answer them would be untrue.
        for waiter in queued { waiter.resume(returning: .failure(.notSent(endedBy: why))) }
        eventContinuation.finish()
        let waiters = end.waiters
        end.waiters = []
        for waiter in waiters { waiter.resume(returning: why) }
        // Debug only: whoever uses the connection learns why from the failed request or
        // `waitUntilClosed()` and decides what the user needs to see.
        logger.debug("connection closed: \(why)")
    }

    // MARK: - Request time-outs

    /// Makes sure `watchdogWoke()` is called by `deadline`: asked again only when no call is due or it would
    /// come later (a request with a shorter limit than the one before).
    func watch(until deadline: ContinuousClock.Instant) {
        if let watchdogWake, watchdogWake <= deadline { return }
        watchdogWake = deadline
        RequestDeadlines.shared.watch(self, until: deadline)
    }

    /// `RequestDeadlines`' call: times out the request in flight when its deadline has passed, else asks to
    /// be called again at that request's deadline; nothing when no request is in flight.
    func watchdogWoke() {
        watchdogWake = nil
        guard let entry = inFlight, reader.isAwaiting(entry.id), end.reason == nil else { return }
        guard ContinuousClock.now < entry.deadline else {
            shutDown(.requestTimedOut(request: entry.summary, seconds: entry.limit.inSeconds))
            return
        }
        watch(until: entry.deadline)
    }
}
