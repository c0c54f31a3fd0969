import CMosquitto
import Dispatch
import Foundation
import Synchronization
import SystemSupport

/// How one connection attempt ended.
private struct AttemptOutcome {
    /// The broker accepted it (CONNACK 0) and it was in use before it ended.
    var established: Bool
    var error: MQTTError
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

    private func runLoop() {
        var failures = 0
        var firstAttempt = true
        while !isStopping {
            state.withLock { $0.attempt = AttemptFacts() }
            let started = ContinuousClock.now
            let rc = startAttempt(first: firstAttempt) { isStopping }
            let savedErrno = errno
            firstAttempt = false
            let outcome =
                rc == MosquittoError.success
                ? drive(since: started)
                : AttemptOutcome(established: false, error: attemptError(rc: rc, savedErrno: savedErrno))
            driveDirectly(false)
            // An attempt that timed out still has its socket; the broker should not wait for it.
            closeSocket()
            if outcome.established { connectionLost(outcome.error) }
            if isStopping { break }
            if !state.withLock({ $0.everReady }) {
                giveUp(outcome.error)
                return
            }
            failures = outcome.established ? 1 : failures + 1
            let delay = reconnectDelay(after: failures)
            if !outcome.established {
                log(
                    .info,
                    "reconnecting to \(brokerName) failed: \(Self.reasonText(outcome.error)); next attempt in \(delay.formattedSeconds)"
                )
            }
            _ = wake.wait(timeout: .now() + .nanoseconds(Int(delay / .nanoseconds(1))))
        }
        finishStopped()
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
                // From here on the loop and the publishers write by hand (MQTTConnection+DirectIO.swift);
                // before becomeReady(), so that the first publisher let through writes at once.
                driveDirectly(true)
                becomeReady()
            }
            if rc != MosquittoError.success || mosquitto_socket(pointer) == -1 {
                return AttemptOutcome(
                    established: established,
                    error: stopping ? .closed : attemptError(rc: rc, savedErrno: savedErrno))
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
            for completion in state.connectWaiters { completion.resume(returning: .success(())) }
            state.connectWaiters = []
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
            for (mid, pending) in state.publishWaiters where pending.qos == .atMostOnce {
                pending.completion.resume(returning: .failure(.notConnected))
                state.publishWaiters[mid] = nil
            }
            for pending in state.subscribeWaiters.values { pending.completion.resume(returning: .success(())) }
            for completion in state.unsubscribeWaiters.values { completion.resume(returning: .success(())) }
            state.subscribeWaiters = [:]
            state.unsubscribeWaiters = [:]
        }
        let reason = Self.reasonText(error)
        log(error == .closed ? .info : .warning, "connection to \(brokerName) ended: \(reason)")
        eventContinuation.yield(.disconnected(reason: reason))
    }

    /// The first connection failed: tell `connect()` and go back to idle so it may be called again, unless
    /// `disconnect()` came in meanwhile.
    private func giveUp(_ error: MQTTError) {
        log(.warning, "could not connect to \(brokerName): \(error)")
        let stopping = state.withLock { state -> Bool in
            for completion in state.connectWaiters { completion.resume(returning: .failure(error)) }
            state.connectWaiters = []
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
