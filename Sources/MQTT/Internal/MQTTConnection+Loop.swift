import CMosquitto
import Dispatch
import Foundation
import Logging
import Synchronization
import SystemSupport

/// How one connection attempt ended.
private struct AttemptOutcome {
    /// The broker accepted it (CONNACK 0) and it was in use before it ended.
    var established: Bool
    var error: MQTTError
    /// How long an established connection lasted, from its CONNACK.
    var lasted: Duration = .zero
    /// The broker ended it because another client took the session over (MQTT 5 reason code 0x8E).
    var sessionTakenOver = false
}

/// What the loop remembers between attempts for its log lines.
private struct ReconnectTally {
    /// Failed attempts since the last connection.
    var failedAttempts = 0
    /// Connections in a row that ended quickly or were taken over.
    var quickDrops = 0
    var failurePace = WarningPace()
    var quickDropPace = WarningPace()
}

/// At most one warning a minute about one kind of trouble that repeats while the client reconnects; the
/// repeats in between go to `info`, so the log still shows every attempt without a warning for each.
private struct WarningPace {
    private var lastWarning: ContinuousClock.Instant?

    /// `.warning` for the `first` line of a new spell of trouble, or when none was given in the last
    /// minute (it counts as given); else `.info`.
    mutating func level(first: Bool, now: ContinuousClock.Instant = .now) -> LogLevel {
        if !first, let lastWarning, now - lastWarning < .seconds(60) { return .info }
        lastWarning = now
        return .warning
    }
}

/// The loop thread. It is ours rather than `mosquitto_loop_start`'s because libmosquitto's own loop
/// (`mosquitto_loop_forever`, 2.0) stops for good after a TLS, protocol or DNS error, counts its reconnect
/// delay in whole seconds and has no connect timeout; a gateway has to reconnect forever.
extension MQTTConnection {
    func launchLoopThread() {
        let thread = Thread { [self] in runLoop() }
        thread.name = "mqtt \(configuration.clientID)"
        thread.start()
    }

    private var isStopping: Bool { state.withLock { $0.phase == .stopping } }

    /// A connection that ends sooner than this after its CONNACK counts as a failed attempt for the
    /// back-off: a broker that drops the client at once (another client with the same client id takes
    /// the session over, and this one takes it back) would otherwise be reconnected to, and everything
    /// republished, every second for ever. The HAP side counts a session that ends right after its sync
    /// the same way.
    static let quickDrop = Duration.seconds(10)

    private func runLoop() {
        var failures = 0
        var tally = ReconnectTally()
        var firstAttempt = true
        while !isStopping {
            state.withLock { $0.attempt = AttemptFacts() }
            let started = ContinuousClock.now
            let rc = startAttempt(first: firstAttempt) { isStopping }
            let savedErrno = errno
            firstAttempt = false
            var outcome =
                rc == MosquittoError.success
                ? drive(since: started)
                : AttemptOutcome(established: false, error: attemptError(rc: rc, savedErrno: savedErrno))
            driveDirectly(false)
            // An attempt that timed out still has its socket; the broker should not wait for it.
            closeSocket()
            outcome.sessionTakenOver = state.withLock { $0.attempt.sessionTakenOver }
            if outcome.established { connectionLost(outcome.error) }
            if isStopping {
                // Named by client id: the gateway's short scan connection ends this way at every start, and
                // must not read as the main connection's end.
                if outcome.established {
                    log(.info, "connection \"\(configuration.clientID)\" to \(brokerName) closed as asked")
                }
                break
            }
            if !state.withLock({ $0.everReady }) {
                giveUp(outcome.error)
                return
            }
            let quick = outcome.established && outcome.lasted < Self.quickDrop
            failures = outcome.established && !quick ? 1 : failures + 1
            let delay = reconnectDelay(after: failures)
            logEnd(of: outcome, quick: quick, nextAttempt: delay, tally: &tally)
            _ = wake.wait(timeout: .now() + .nanoseconds(Int(delay / .nanoseconds(1))))
        }
        finishStopped()
    }

    /// Logs how an attempt or connection ended and when the next attempt comes. Trouble that repeats
    /// while the client reconnects (failed attempts, quick drops) is a warning when it starts and then
    /// once a minute (`WarningPace`), `info` in between, as the HAP side logs its reconnects.
    private func logEnd(
        of outcome: AttemptOutcome, quick: Bool, nextAttempt delay: Duration, tally: inout ReconnectTally
    ) {
        let reason = Self.reasonText(outcome.error)
        let next = "next attempt in \(delay.formattedSeconds)"
        let clientID = "\"\(configuration.clientID)\""
        guard outcome.established else {
            tally.failedAttempts += 1
            let attempt = tally.failedAttempts > 1 ? " (attempt \(tally.failedAttempts))" : ""
            log(
                tally.failurePace.level(first: tally.failedAttempts == 1),
                "reconnecting to \(brokerName) failed\(attempt): \(reason); \(next)")
            return
        }
        tally.failedAttempts = 0
        tally.quickDrops = quick || outcome.sessionTakenOver ? tally.quickDrops + 1 : 0
        let level = tally.quickDropPace.level(first: tally.quickDrops == 1)
        if outcome.sessionTakenOver {
            log(
                level,
                "connection to \(brokerName) ended: another client connected with this client's id \(clientID) "
                    + "and the broker gave it the session (Session taken over); every client needs an id of its "
                    + "own: set a unique \(configuration.clientIDSetting); \(next)")
        } else if quick {
            // MQTT 3.1.1 has no reason code, and mosquitto before 2.0.15 sends none with MQTT 5 either: the
            // broker closes the connection of a client whose id another one takes without a word.
            log(
                level,
                "connection to \(brokerName) ended: \(reason) (\(outcome.lasted.formattedSeconds) after it was made); "
                    + "another client connecting with the same client id \(clientID) is one likely cause "
                    + "(set a unique \(configuration.clientIDSetting)); \(next)")
        } else {
            log(.warning, "connection to \(brokerName) ended: \(reason)")
        }
    }

    /// Ends a connection that DISCONNECT did not end in time, or an attempt that timed out, at once
    /// rather than when the client is deallocated or reconnects: the broker must not think a stopped
    /// client is still there. libmosquitto closes the descriptor itself later.
    private func closeSocket() {
        let socket = mosquitto_socket(pointer)
        guard socket >= 0 else { return }
        #if canImport(Glibc)
            _ = shutdown(socket, Int32(SHUT_RDWR))
        #else
            _ = shutdown(socket, SHUT_RDWR)
        #endif
    }

    /// Drives one connection until it ends: reads, writes, keep-alive, the connect timeout and the end of
    /// the connection after `disconnect()`.
    private func drive(since started: ContinuousClock.Instant) -> AttemptOutcome {
        var established = false
        var connectedAt = started
        var stopDeadline: ContinuousClock.Instant?
        while true {
            // 250 ms bounds how late a timeout or stop is noticed; packets to send wake the loop at once
            // (libmosquitto's wake-up socket while connecting, `writeQueued()` once established).
            let rc = established ? turnDirectly() : mosquitto_loop(pointer, 250, 1)
            let savedErrno = errno
            // Outside the read: the consumer may handle a command on this thread at once, and its answer
            // is then written at once too rather than left for this loop's next turn.
            if let wake = pendingWake.withLock({ w in
                defer { w = nil }
                return w
            }) {
                wake()
            }
            let (connack, stopping) = state.withLock { ($0.attempt.connack, $0.phase == .stopping) }
            if !established, !stopping, let connack, connack.code == 0 {
                established = true
                connectedAt = .now
                // From here on the loop and the publishers write by hand (MQTTConnection+DirectIO.swift);
                // before becomeReady(), so that the first publisher let through writes at once.
                driveDirectly(true)
                becomeReady()
            }
            if rc != MosquittoError.success || mosquitto_socket(pointer) == -1 {
                return AttemptOutcome(
                    established: established,
                    error: stopping ? .closed : attemptError(rc: rc, savedErrno: savedErrno),
                    lasted: .now - connectedAt)
            }
            let now = ContinuousClock.now
            if stopping {
                // Give the DISCONNECT packet a moment to leave; a broker that stopped reading gets none.
                guard established else { return AttemptOutcome(established: false, error: .closed) }
                if let stopDeadline, now >= stopDeadline { return AttemptOutcome(established: true, error: .closed) }
                stopDeadline = stopDeadline ?? now + .seconds(2)
            } else if !established, now - started > configuration.connectTimeout {
                return AttemptOutcome(
                    established: false,
                    error: .timedOut(
                        "no CONNACK from \(brokerName) within \(configuration.connectTimeout.formattedSeconds)"))
            }
        }
    }

    /// The error that best explains why an attempt or connection ended: the broker's refusal, then
    /// OpenSSL's reason, then what the disconnect callback or the failing call said.
    private func attemptError(rc: Int32, savedErrno: Int32) -> MQTTError {
        let facts = state.withLock { $0.attempt }
        if let connack = facts.connack, connack.code != 0 {
            return .connectionRefused(code: Int(connack.code), reason: connack.reason)
        }
        if rc == MOSQ_ERR_TLS.rawValue || rc == MOSQ_ERR_TLS_HANDSHAKE.rawValue {
            return .tls(facts.errorLog ?? MosquittoError.text(rc))
        }
        if let reason = facts.disconnectReason { return .connectionFailed(reason) }
        if rc == MosquittoError.success || rc == MosquittoError.noConnection {
            return .connectionFailed("the broker closed the connection")
        }
        return .connectionFailed(MosquittoError.text(rc, savedErrno: savedErrno))
    }

    /// The broker accepted the connection: re-send the remembered subscriptions, then the messages kept
    /// while offline, and only then let publishers through, so nothing overtakes them.
    private func becomeReady() {
        let (reconnect, dropped) = state.withLock { state -> (Bool, Int) in
            resubscribe(&state)
            // Publishers wait for the lock, so the queued messages still go out before theirs.
            state.ready = true
            flushOfflineQueue(&state)
            let reconnect = state.everReady
            state.everReady = true
            let dropped = state.droppedWhileOffline
            state.droppedWhileOffline = 0
            for completion in state.waiters.connect { completion.resume(returning: .success(())) }
            state.waiters.connect = []
            if !state.hooks.isEmpty {
                let hooks = state.hooks
                let previous = state.hookChain
                state.hookChain = Task {
                    await previous?.value
                    for hook in hooks { await hook(reconnect) }
                }
            }
            return (reconnect, dropped)
        }
        log(
            .info, "\(reconnect ? "reconnected" : "connected") to \(brokerName) (MQTT \(configuration.protocolVersion))"
        )
        if dropped > 0 {
            log(.info, "dropped \(dropped) messages published while disconnected (QoS 0, or beyond maxQueuedMessages)")
        }
        eventContinuation.yield(.connected(reconnect: reconnect))
    }

    /// An established connection ended. QoS 0 messages not yet written are gone; QoS 1/2 messages stay in
    /// libmosquitto's session and are sent again, so their waiters keep waiting. Subscriptions waiting
    /// for SUBACK are remembered and go out after the reconnect.
    private func connectionLost(_ error: MQTTError) {
        state.withLock { state in
            state.ready = false
            moveBacklogOffline(&state)
            state.resubscriptions = [:]
            for (mid, pending) in state.waiters.publish where pending.qos == .atMostOnce {
                pending.completion.resume(returning: .failure(.notConnected))
                state.waiters.publish[mid] = nil
            }
            for pending in state.waiters.subscribe.values { pending.completion.resume(returning: .success(())) }
            for completion in state.waiters.unsubscribe.values { completion.resume(returning: .success(())) }
            state.waiters.subscribe = [:]
            state.waiters.unsubscribe = [:]
        }
        // The loop logs the end, once it knows when the next attempt comes.
        eventContinuation.yield(.disconnected(reason: Self.reasonText(error)))
    }

    /// The first connection failed: tell `connect()` and go back to idle so it may be called again, unless
    /// `disconnect()` came in meanwhile.
    private func giveUp(_ error: MQTTError) {
        log(.warning, "could not connect to \(brokerName): \(error)")
        let stopping = state.withLock { state -> Bool in
            for completion in state.waiters.connect { completion.resume(returning: .failure(error)) }
            state.waiters.connect = []
            guard state.phase != .stopping else { return true }
            failPendingOperations(&state, with: .notConnected)
            state.phase = .idle
            return false
        }
        if stopping { finishStopped() }
    }

    /// `min` doubled per failure up to `max`, with ±20 % jitter so that many clients restarted together do
    /// not reconnect in step.
    private func reconnectDelay(after failures: Int) -> Duration {
        let (minimum, maximum) = configuration.reconnectDelay
        let doubled = minimum * (1 << min(max(failures - 1, 0), 20))
        return min(maximum, min(doubled, maximum) * Double.random(in: 0.8...1.2))
    }

    static func reasonText(_ error: MQTTError) -> String {
        switch error {
        case .connectionFailed(let text): return text
        case .closed: return "disconnect() was called"
        default: return error.description
        }
    }
}

extension Duration {
    /// "0.5 s", "30 s": for log lines and error texts.
    var formattedSeconds: String {
        let rounded = (inSeconds * 10).rounded() / 10
        return rounded == rounded.rounded() ? "\(Int(rounded)) s" : "\(rounded) s"
    }
}
