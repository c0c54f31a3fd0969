import HomeModel

/// The life of a provider's connection to its accessory server, as one state value and the transitions
/// between its states (docs/DESIGN.md "Availability and recovery"). It does no I/O and reads no clock:
/// every event carries the time it happened, and each transition returns the `Action`s that
/// `HAPAccessoryProvider` then runs, in order (the shape of `HAPConnectionReader`).
///
/// At most one action of a transition blocks the provider's run loop (`Action.isStep`: an attempt, a
/// session, a wait), and it comes last; what it ends in is the loop's next event. Events from elsewhere
/// (an announcement, a command, the offline grace running out, `stop()`) return side effects only, and
/// `.wake` when they cut a wait short.
///
/// The rules it keeps:
/// - A session that ran for `healthySession` or more and dropped is replaced at once; one that ended
///   sooner counts as a failure, like a failed attempt, and the next attempt waits for `ReconnectBackoff`.
/// - The accessories of a dropped session are reported unreachable only when no new session is synced
///   within `offlineGrace` (or at once when an attempt fails first).
/// - Reads and writes may wait for the session while one runs and while the first attempt to replace a
///   dropped one is under way (`waitersMayWait`); every end of an attempt resumes them. Otherwise, while
///   an attempt or the back-off runs, they end the back-off and wait for that attempt briefly
///   (`connectsOnDemand`).
/// - An announcement, a command, or the link answering a probe (`probesLink`) while offline ends the
///   back-off (attempts they start are at least `minimumAttemptSpacing` apart); after a rejection, only an announcement of the accessory as paired at
///   another address starts one more attempt.
struct ProviderConnectionStateMachine: Sendable {
    typealias Instant = ContinuousClock.Instant

    /// Where the connection is.
    enum State: Sendable, Hashable {
        /// Not started yet.
        case idle
        /// An attempt (pair-verify at the candidate addresses, then the sync) is under way since `started`;
        /// `afterDrop`: it is the first attempt to replace a dropped session.
        case connecting(started: Instant, afterDrop: Bool)
        /// A synced session runs, since `since`.
        case live(since: Instant)
        /// Waiting out the back-off until `until`; the last attempt started at `lastAttempt`.
        case backingOff(until: Instant, lastAttempt: Instant, afterDrop: Bool)
        /// The accessory refused this controller; with DNS-SD, waiting for it to be announced as paired at
        /// another address.
        case rejected
        /// This controller's identity cannot be loaded; tried again at intervals.
        case waitingForIdentity
        /// The pairing's file cannot be read: the provider never connects.
        case unusable
        /// `stop()` was called.
        case stopped
    }

    /// What happened.
    enum Event: Sendable, Hashable {
        /// `start()`; `unusable` is why the pairing cannot be used, if it cannot.
        case start(unusable: String?, at: Instant)
        /// The attempt synced a session.
        case attemptSucceeded(at: Instant)
        /// The attempt failed (`reason`: what the user reads); `reached`: its TCP connection had opened
        /// (else the link or the host is down: the back-off probes for its return).
        case attemptFailed(String, reached: Bool = true, at: Instant)
        /// Pair-verify at the stored address says the accessory no longer knows this controller.
        case rejected(String)
        /// This controller's identity cannot be loaded (`reason`).
        case identityUnusable(String)
        /// The identity loads again.
        case identityLoaded(at: Instant)
        /// The live session's connection closed for `reason`, with `accessories` the session had; `quiet`
        /// is how long the accessory had been quiet when it ended.
        case sessionEnded(String, accessories: [AccessoryID], quiet: Duration?, at: Instant)
        /// The back-off wait ended: its time ran out, or (`woken`) something cut it short.
        case backOffEnded(woken: Bool, at: Instant)
        /// After a rejection, the accessory was announced as paired at another address.
        case announcedElsewhere(at: Instant)
        /// The grace timer `generation` ran out.
        case graceExpired(generation: UInt64)
        /// The accessory server announced itself; `pairedElsewhere`: as paired, at an address that was not
        /// refused or found unproven.
        case announced(pairedElsewhere: Bool)
        /// A read or write arrived.
        case commandArrived
        /// During the back-off, a TCP connection to the accessory's address opened: the link is back.
        case linkAnswered
        /// `stop()`.
        case stop
    }

    /// What the provider does, in the order given.
    enum Action: Sendable, Hashable {
        /// Step: waits `pause`, then makes one attempt.
        case connect(after: Duration)
        /// Step: runs the synced session until its connection closes.
        case watch
        /// Step: waits `delay`, or until woken (logged as "reconnecting in").
        case backOff(Duration)
        /// Step: waits for an announcement of the accessory as paired at another address.
        case awaitAnnouncementElsewhere
        /// Step: tries to load this controller's identity at intervals.
        case awaitIdentity
        /// Cuts the wait under way short (or the next one, if none is under way yet).
        case wake
        /// Checks the live session against the new announcement (re-fetch, re-read, a quick read).
        case followAnnouncement
        /// Resumes the reads and writes waiting for a session, with the live one or (false) with none.
        case resumeWaiters(connected: Bool)
        /// Runs out after `delay` as `.graceExpired(generation:)`.
        case startGraceTimer(generation: UInt64, after: Duration)
        /// Reports `accessories` unreachable with `reason`.
        case reportUnreachable([AccessoryID], reason: String)
        /// Reports every known accessory unreachable with `reason`.
        case reportAllUnreachable(reason: String)
        /// The first sync, from the cached accessory list (unreachable), or failed without one.
        case reportFromCache(reason: String)
        /// Tells the user that the accessory refused this controller and what to do.
        case reportRejected(String)
        /// Logs the loss of the live session.
        case logLost(String)
        /// Logs the `attempt`-th failed attempt in a row.
        case logFailure(attempt: Int, reason: String)
        /// Logs that an announcement ended the back-off.
        case logAnnouncedReturn
        /// Logs that a read or write ended the back-off.
        case logCommandWake
        /// Logs that the link answers again, which ended the back-off.
        case logLinkBack
        /// Logs that an announcement elsewhere ends the wait after a rejection.
        case logAnnouncedElsewhere
        /// The accessory ended the last session after `quiet` and answered at once again: an idle limit.
        case learnIdleLimit(quiet: Duration)
        /// Closes every connection and finishes the events.
        case shutDown

        /// Whether the provider's run loop waits on it (and takes what it ends in as the next event).
        var isStep: Bool {
            switch self {
            case .connect, .watch, .backOff, .awaitAnnouncementElsewhere, .awaitIdentity: return true
            default: return false
            }
        }
    }

    /// How long a session must have run for its end to be followed by an immediate reconnect.
    static let healthySession = Duration.seconds(1)
    /// The shortest time between two attempts that an announcement or a command started (a flood of them
    /// must not become a flood of connections).
    static let minimumAttemptSpacing: Duration = .milliseconds(250)

    private(set) var state = State.idle
    /// Why there is no live session (what the user reads).
    private(set) var disconnectReason = "not connected yet"
    /// Whether the first sync (or its failure) has been reported.
    private(set) var firstSyncReported = false
    /// How many sessions were synced; every one after the first is a reconnect.
    private(set) var sessionsInstalled = 0
    private var backoff: ReconnectBackoff
    private let offlineGrace: Duration
    private let followsAnnouncements: Bool
    /// Failed attempts since the last synced session, for the log.
    private(set) var failuresInARow = 0
    /// The accessories of a dropped session whose report waits for the grace timer, and its generation.
    private var heldReport: (accessories: [AccessoryID], generation: UInt64)?
    private var generation: UInt64 = 0
    /// Since when no session has been live, once a session dropped or an attempt failed; nil while one is.
    private(set) var offlineSince: Instant?
    /// The quiet time before the accessory ended the last session, until the attempt right after shows
    /// whether it was an idle limit (the accessory answers at once) or the accessory going down (it does
    /// not): a crash or restart after a second of quiet is no reason to keep connections alive more often.
    private var quietBeforeLoss: Duration?
    /// What cut the back-off under way short, for the log.
    private var wokenBy = Action.logAnnouncedReturn
    /// Whether the last attempt failed before its TCP connection opened.
    private(set) var lastAttemptUnreached = false
    /// The delay of the back-off under way (or the last one).
    private var backOffDelay = Duration.zero

    /// How often a back-off after an attempt that could not open a connection tries one (a TCP connect,
    /// closed at once), so that the link's return ends it within seconds however long it is.
    static let probeInterval = Duration.seconds(2)
    /// Whether the back-off under way probes the link (`probeInterval`): the last attempt could not open
    /// its TCP connection, and the back-off is long enough for a probe.
    var probesLink: Bool {
        guard lastAttemptUnreached, case .backingOff = state else { return false }
        return backOffDelay > Self.probeInterval
    }

    /// A machine with `backoff`'s schedule and `offlineGrace`; `followsAnnouncements` when the provider
    /// browses DNS-SD (a rejection then waits for an announcement elsewhere instead of ending for good).
    init(backoff: ReconnectBackoff, offlineGrace: Duration, followsAnnouncements: Bool) {
        self.backoff = backoff
        self.offlineGrace = offlineGrace
        self.followsAnnouncements = followsAnnouncements
    }

    var isStopped: Bool { state == .stopped }
    var isLive: Bool { if case .live = state { true } else { false } }
    var isRejected: Bool { state == .rejected }

    /// Whether a read or write may wait for a session: one runs, or the attempt to replace a dropped one
    /// is under way. While the back-off runs it asks for an attempt instead (`connectsOnDemand`), and
    /// waits for that one only briefly: the back-off may be a minute, longer than any write may wait.
    var waitersMayWait: Bool {
        switch state {
        case .live: return true
        case .connecting(_, let afterDrop): return afterDrop
        default: return false
        }
    }

    /// Whether a read or write that finds no session may ask for one and wait for it briefly
    /// (`HAPAccessoryProvider.session(after:)`): an attempt is under way or the back-off runs, which a
    /// command ends (`.commandArrived`). Not after a rejection, nor while the identity cannot be loaded.
    var connectsOnDemand: Bool {
        switch state {
        case .connecting, .backingOff: return true
        default: return false
        }
    }

    /// Takes `event` and returns what to do.
    mutating func handle(_ event: Event) -> [Action] {
        if state == .stopped { return [] }
        switch event {
        case .start(let unusable, let now):
            guard state == .idle else { return [] }
            if let unusable {
                state = .unusable
                disconnectReason = unusable
                firstSyncReported = true
                return [.reportFromCache(reason: unusable)]
            }
            return connect(at: now, afterDrop: false)
        case .attemptSucceeded(let now): return synced(at: now)
        case .attemptFailed(let reason, let reached, let now):
            guard case .connecting = state else { return [] }
            lastAttemptUnreached = !reached
            return failed(reason, at: now)
        case .rejected(let reason): return rejected(reason)
        case .identityUnusable(let reason): return identityUnusable(reason)
        case .identityLoaded(let now):
            guard state == .waitingForIdentity else { return [] }
            return connect(at: now, afterDrop: false)
        case .sessionEnded(let reason, let accessories, let quiet, let now):
            return sessionEnded(reason, accessories, quiet: quiet, at: now)
        case .backOffEnded(let woken, let now):
            guard case .backingOff(_, let lastAttempt, let afterDrop) = state else { return [] }
            guard woken else { return connect(at: now, afterDrop: afterDrop) }
            let pause = max(.zero, Self.minimumAttemptSpacing - (now - lastAttempt))
            return [wokenBy] + connect(at: now + pause, afterDrop: afterDrop, pause: pause)
        case .announcedElsewhere(let now):
            guard state == .rejected else { return [] }
            return [.logAnnouncedElsewhere] + connect(at: now, afterDrop: false)
        case .graceExpired(let expired):
            guard let held = heldReport, held.generation == expired else { return [] }
            heldReport = nil
            guard !isLive, !held.accessories.isEmpty else { return [] }
            return [.reportUnreachable(held.accessories, reason: disconnectReason)]
        case .announced(let pairedElsewhere):
            switch state {
            case .live: return [.followAnnouncement]
            case .connecting, .backingOff:
                wokenBy = .logAnnouncedReturn
                return [.wake]
            case .rejected: return pairedElsewhere && followsAnnouncements ? [.wake] : []
            default: return []
            }
        case .commandArrived:
            guard case .backingOff = state else { return [] }
            wokenBy = .logCommandWake
            return [.wake]
        case .linkAnswered:
            guard case .backingOff = state else { return [] }
            wokenBy = .logLinkBack
            return [.wake]
        case .stop:
            state = .stopped
            dropHeldReport()
            return [.resumeWaiters(connected: false), .shutDown]
        }
    }

    /// Starts an attempt at `now` (after `pause`).
    private mutating func connect(at now: Instant, afterDrop: Bool, pause: Duration = .zero) -> [Action] {
        state = .connecting(started: now, afterDrop: afterDrop)
        return [.connect(after: pause)]
    }

    private mutating func synced(at now: Instant) -> [Action] {
        guard case .connecting = state else { return [] }
        state = .live(since: now)
        lastAttemptUnreached = false
        sessionsInstalled += 1
        offlineSince = nil
        firstSyncReported = true
        failuresInARow = 0
        dropHeldReport()
        var actions: [Action] = [.resumeWaiters(connected: true)]
        if let quiet = quietBeforeLoss { actions.append(.learnIdleLimit(quiet: quiet)) }
        quietBeforeLoss = nil
        return actions + [.watch]
    }

    private mutating func failed(_ reason: String, at now: Instant) -> [Action] {
        guard case .connecting(let started, _) = state else { return [] }
        disconnectReason = reason
        quietBeforeLoss = nil
        offlineSince = offlineSince ?? now
        var actions: [Action] = [.resumeWaiters(connected: false)]
        if let held = heldReport {
            heldReport = nil
            if !held.accessories.isEmpty { actions.append(.reportUnreachable(held.accessories, reason: reason)) }
        }
        failuresInARow += 1
        actions.append(.logFailure(attempt: failuresInARow, reason: reason))
        if !firstSyncReported {
            firstSyncReported = true
            actions.append(.reportFromCache(reason: reason))
        }
        return actions + backOff(at: now, lastAttempt: started, afterDrop: false)
    }

    private mutating func sessionEnded(
        _ reason: String, _ accessories: [AccessoryID], quiet: Duration?, at now: Instant
    )
        -> [Action]
    {
        guard case .live(let since) = state else { return [] }
        disconnectReason = reason
        offlineSince = now
        var actions: [Action] = [.logLost(reason)]
        if !accessories.isEmpty {
            generation += 1
            heldReport = (accessories, generation)
            actions.append(.startGraceTimer(generation: generation, after: offlineGrace))
        }
        // A session that ran for a while and ended is no failure to back off from: the accessory most
        // likely closed it for being idle, and reads and writes wait for the new one. One that ended
        // sooner leaves the back-off growing: an accessory that drops every session right after its sync
        // would otherwise be synced again twice a second.
        guard now - since >= Self.healthySession else {
            return actions + backOff(at: now, lastAttempt: since, afterDrop: true)
        }
        backoff.reset()
        quietBeforeLoss = quiet
        return actions + connect(at: now, afterDrop: true)
    }

    private mutating func backOff(at now: Instant, lastAttempt: Instant, afterDrop: Bool) -> [Action] {
        let delay = backoff.nextDelay()
        backOffDelay = delay
        state = .backingOff(until: now + delay, lastAttempt: lastAttempt, afterDrop: afterDrop)
        return [.backOff(delay)]
    }

    private mutating func rejected(_ reason: String) -> [Action] {
        guard case .connecting = state else { return [] }
        state = .rejected
        disconnectReason = "\(reason); pair again with hap2mqtt pair"
        quietBeforeLoss = nil
        dropHeldReport()
        return [.resumeWaiters(connected: false), .reportRejected(reason), firstReport(disconnectReason)]
            + (followsAnnouncements ? [.awaitAnnouncementElsewhere] : [])
    }

    private mutating func identityUnusable(_ reason: String) -> [Action] {
        guard case .connecting = state else { return [] }
        state = .waitingForIdentity
        disconnectReason = reason
        quietBeforeLoss = nil
        dropHeldReport()
        return [.resumeWaiters(connected: false), firstReport(reason), .awaitIdentity]
    }

    /// The first sync from the cache, when none was reported yet, else every accessory unreachable.
    private mutating func firstReport(_ reason: String) -> Action {
        guard firstSyncReported else {
            firstSyncReported = true
            return .reportFromCache(reason: reason)
        }
        return .reportAllUnreachable(reason: reason)
    }

    /// A new session is there, or none will come: the held report goes, and its timer finds nothing.
    private mutating func dropHeldReport() {
        generation += 1
        heldReport = nil
    }
}
