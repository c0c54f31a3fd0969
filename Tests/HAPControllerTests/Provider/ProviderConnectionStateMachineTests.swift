import HomeModel
import Testing

@testable import HAPController

/// The provider's connection life as tables of events and the actions they return
/// (`ProviderConnectionStateMachine`): reconnects, back-off, the offline grace, following announcements,
/// rejection and stopping, without sockets or sleeps. Times are seconds after an origin.
@Suite("Provider connection state machine")
struct ProviderConnectionStateMachineTests {
    typealias Machine = ProviderConnectionStateMachine

    /// One event, the actions it must return, and whether reads and writes may then wait for a session.
    struct Step: CustomStringConvertible {
        let event: Machine.Event
        let actions: [Machine.Action]
        var mayWait: Bool?

        var description: String { "\(event)" }
    }

    static let origin = ContinuousClock.now
    static func t(_ seconds: Double) -> ContinuousClock.Instant { origin + .seconds(seconds) }
    static let lamp = AccessoryID(serverID: "AA:BB:CC:DD:EE:FF", aid: 1)
    static let grace = Duration.seconds(1)

    /// A machine without jitter, so that every delay is the schedule's step.
    static func machine(announcements: Bool = true) -> Machine {
        Machine(
            backoff: ReconnectBackoff(initial: .milliseconds(500), maximum: .seconds(60), jitter: 0),
            offlineGrace: grace, followsAnnouncements: announcements)
    }

    /// Runs `steps` on `machine` and checks each one's actions (and waiting rule, where given).
    static func play(_ steps: [Step], on machine: Machine = machine()) {
        var machine = machine
        for (number, step) in steps.enumerated() {
            let actions = machine.handle(step.event)
            #expect(actions == step.actions, "step \(number + 1): \(step)")
            if let mayWait = step.mayWait { #expect(machine.waitersMayWait == mayWait, "step \(number + 1): \(step)") }
            #expect(
                actions.filter(\.isStep).count <= 1 && (actions.last?.isStep ?? true || !actions.contains { $0.isStep })
            )
        }
    }

    @Test(
        "a session that ran a while and dropped is replaced at once; its accessories stay reachable through the grace")
    func healthyDrop() {
        Self.play([
            Step(event: .start(unusable: nil, at: Self.t(0)), actions: [.connect(after: .zero)], mayWait: false),
            Step(
                event: .attemptSucceeded(at: Self.t(0.2)), actions: [.resumeWaiters(connected: true), .watch],
                mayWait: true),
            Step(
                event: .sessionEnded(
                    "closed by the accessory", accessories: [Self.lamp], quiet: .seconds(20), at: Self.t(30)),
                actions: [
                    .logLost("closed by the accessory"), .startGraceTimer(generation: 2, after: Self.grace),
                    .connect(after: .zero),
                ], mayWait: true),
            Step(
                event: .attemptSucceeded(at: Self.t(30.3)),
                actions: [.resumeWaiters(connected: true), .learnIdleLimit(quiet: .seconds(20)), .watch]),
            Step(event: .graceExpired(generation: 2), actions: []),
        ])
    }

    @Test("failed attempts back off 0.5, 1, 2 s; the first failure reports the cache; a sync starts the count again")
    func backoff() {
        Self.play([
            Step(event: .start(unusable: nil, at: Self.t(0)), actions: [.connect(after: .zero)]),
            Step(
                event: .attemptFailed("connection refused", at: Self.t(0.1)),
                actions: [
                    .resumeWaiters(connected: false), .logFailure(attempt: 1, reason: "connection refused"),
                    .reportFromCache(reason: "connection refused"), .backOff(.milliseconds(500)),
                ], mayWait: false),
            Step(
                event: .backOffEnded(woken: false, at: Self.t(0.6)), actions: [.connect(after: .zero)], mayWait: false),
            Step(
                event: .attemptFailed("connection refused", at: Self.t(0.7)),
                actions: [
                    .resumeWaiters(connected: false), .logFailure(attempt: 2, reason: "connection refused"),
                    .backOff(.seconds(1)),
                ]),
            Step(event: .backOffEnded(woken: false, at: Self.t(1.7)), actions: [.connect(after: .zero)]),
            Step(
                event: .attemptFailed("timed out", at: Self.t(11.7)),
                actions: [
                    .resumeWaiters(connected: false), .logFailure(attempt: 3, reason: "timed out"),
                    .backOff(.seconds(2)),
                ]),
            Step(event: .backOffEnded(woken: false, at: Self.t(13.7)), actions: [.connect(after: .zero)]),
            Step(event: .attemptSucceeded(at: Self.t(14)), actions: [.resumeWaiters(connected: true), .watch]),
            // A long session resets the schedule; the next failure is the first again.
            Step(
                event: .sessionEnded("reset", accessories: [], quiet: nil, at: Self.t(100)),
                actions: [.logLost("reset"), .connect(after: .zero)]),
            Step(
                event: .attemptFailed("connection refused", at: Self.t(100.1)),
                actions: [
                    .resumeWaiters(connected: false), .logFailure(attempt: 1, reason: "connection refused"),
                    .backOff(.milliseconds(500)),
                ]),
        ])
    }

    @Test("a session that ends within a second of its sync counts as a failure: the back-off keeps growing")
    func shortSessions() {
        Self.play([
            Step(event: .start(unusable: nil, at: Self.t(0)), actions: [.connect(after: .zero)]),
            Step(event: .attemptSucceeded(at: Self.t(0.1)), actions: [.resumeWaiters(connected: true), .watch]),
            Step(
                event: .sessionEnded("reset", accessories: [Self.lamp], quiet: nil, at: Self.t(0.3)),
                actions: [
                    .logLost("reset"), .startGraceTimer(generation: 2, after: Self.grace), .backOff(.milliseconds(500)),
                ],
                // During the back-off a command asks for an attempt rather than waiting it out.
                mayWait: false),
            Step(event: .backOffEnded(woken: false, at: Self.t(0.8)), actions: [.connect(after: .zero)], mayWait: true),
            Step(event: .attemptSucceeded(at: Self.t(0.9)), actions: [.resumeWaiters(connected: true), .watch]),
            Step(
                event: .sessionEnded("reset", accessories: [Self.lamp], quiet: nil, at: Self.t(1.0)),
                actions: [.logLost("reset"), .startGraceTimer(generation: 4, after: Self.grace), .backOff(.seconds(1))]),
        ])
    }

    @Test("offline grace: reported when it runs out, at once with the failure's reason when an attempt fails first")
    func offlineGrace() {
        let dropped: [Step] = [
            Step(event: .start(unusable: nil, at: Self.t(0)), actions: [.connect(after: .zero)]),
            Step(event: .attemptSucceeded(at: Self.t(0.1)), actions: [.resumeWaiters(connected: true), .watch]),
            Step(
                event: .sessionEnded("connection reset", accessories: [Self.lamp], quiet: nil, at: Self.t(10)),
                actions: [
                    .logLost("connection reset"), .startGraceTimer(generation: 2, after: Self.grace),
                    .connect(after: .zero),
                ]),
        ]
        // The attempt is still under way when the grace runs out.
        Self.play(
            dropped + [
                Step(
                    event: .graceExpired(generation: 2),
                    actions: [.reportUnreachable([Self.lamp], reason: "connection reset")], mayWait: true),
                Step(
                    event: .attemptFailed("connection refused", at: Self.t(12)),
                    actions: [
                        .resumeWaiters(connected: false), .logFailure(attempt: 1, reason: "connection refused"),
                        .backOff(.milliseconds(500)),
                    ], mayWait: false),
            ])
        // The attempt fails first.
        Self.play(
            dropped + [
                Step(
                    event: .attemptFailed("connection refused", at: Self.t(10.2)),
                    actions: [
                        .resumeWaiters(connected: false), .reportUnreachable([Self.lamp], reason: "connection refused"),
                        .logFailure(attempt: 1, reason: "connection refused"), .backOff(.milliseconds(500)),
                    ]),
                Step(event: .graceExpired(generation: 2), actions: []),
            ])
        // A new session comes in time: nothing is reported, and an old timer finds nothing.
        Self.play(
            dropped + [
                Step(event: .attemptSucceeded(at: Self.t(10.4)), actions: [.resumeWaiters(connected: true), .watch]),
                Step(event: .graceExpired(generation: 2), actions: []),
            ])
    }

    @Test("announcements: offline they end the back-off (attempts 250 ms apart), live they are followed")
    func following() {
        Self.play([
            Step(event: .announced(pairedElsewhere: false), actions: []),
            Step(event: .start(unusable: nil, at: Self.t(0)), actions: [.connect(after: .zero)]),
            Step(event: .announced(pairedElsewhere: false), actions: [.wake]),
            Step(
                event: .attemptFailed("no route to host", at: Self.t(0.1)),
                actions: [
                    .resumeWaiters(connected: false), .logFailure(attempt: 1, reason: "no route to host"),
                    .reportFromCache(reason: "no route to host"), .backOff(.milliseconds(500)),
                ]),
            Step(event: .announced(pairedElsewhere: true), actions: [.wake]),
            // The wait ended 100 ms after the failed attempt started: the next one waits the rest of 250 ms.
            Step(
                event: .backOffEnded(woken: true, at: Self.t(0.1)),
                actions: [.logAnnouncedReturn, .connect(after: .milliseconds(150))]),
            Step(event: .attemptSucceeded(at: Self.t(0.5)), actions: [.resumeWaiters(connected: true), .watch]),
            Step(event: .announced(pairedElsewhere: false), actions: [.followAnnouncement]),
            // Woken long after the last attempt: no pause.
            Step(
                event: .sessionEnded("reset", accessories: [], quiet: nil, at: Self.t(0.6)),
                actions: [.logLost("reset"), .backOff(.seconds(1))]),
            Step(
                event: .backOffEnded(woken: true, at: Self.t(1.2)),
                actions: [.logAnnouncedReturn, .connect(after: .zero)]),
        ])
    }

    @Test(
        "a command ends the back-off as an announcement does; during an attempt, or after a rejection, it asks nothing")
    func commands() {
        var machine = Self.machine()
        _ = machine.handle(.start(unusable: nil, at: Self.t(0)))
        #expect(machine.connectsOnDemand, "an attempt under way")
        Self.play(
            [
                Step(event: .commandArrived, actions: []),
                Step(
                    event: .attemptFailed("connection refused", at: Self.t(0.1)),
                    actions: [
                        .resumeWaiters(connected: false), .logFailure(attempt: 1, reason: "connection refused"),
                        .reportFromCache(reason: "connection refused"), .backOff(.milliseconds(500)),
                    ]),
                Step(event: .commandArrived, actions: [.wake], mayWait: false),
                // The failed attempt started at 0 s: the next one waits for the rest of 250 ms.
                Step(
                    event: .backOffEnded(woken: true, at: Self.t(0.2)),
                    actions: [.logCommandWake, .connect(after: .milliseconds(50))]),
                Step(event: .attemptSucceeded(at: Self.t(0.6)), actions: [.resumeWaiters(connected: true), .watch]),
                Step(event: .commandArrived, actions: [], mayWait: true),
            ], on: machine)
        var rejected = Self.machine()
        _ = rejected.handle(.start(unusable: nil, at: Self.t(0)))
        _ = rejected.handle(.rejected("removed"))
        #expect(!rejected.connectsOnDemand)
        #expect(rejected.offlineSince == nil, "never live, never failed: no offline time to tell")
        var dropped = Self.machine()
        _ = dropped.handle(.start(unusable: nil, at: Self.t(0)))
        _ = dropped.handle(.attemptSucceeded(at: Self.t(1)))
        _ = dropped.handle(.sessionEnded("reset", accessories: [], quiet: nil, at: Self.t(9)))
        _ = dropped.handle(.attemptFailed("connection refused", at: Self.t(10)))
        #expect(dropped.offlineSince == Self.t(9), "offline since the drop, not the failure after it")
        #expect(dropped.disconnectReason == "connection refused")
    }

    @Test("after an attempt that could not open a connection, a long back-off probes the link, and its answer ends it")
    func probes() {
        var machine = Self.machine()
        _ = machine.handle(.start(unusable: nil, at: Self.t(0)))
        _ = machine.handle(.attemptFailed("connection refused", reached: true, at: Self.t(0.1)))
        #expect(!machine.probesLink, "the host answered: a probe would only start attempts the back-off spaces out")
        Self.play(
            [
                Step(event: .backOffEnded(woken: false, at: Self.t(0.6)), actions: [.connect(after: .zero)]),
                Step(
                    event: .attemptFailed("no route to host", reached: false, at: Self.t(3.6)),
                    actions: [
                        .resumeWaiters(connected: false), .logFailure(attempt: 2, reason: "no route to host"),
                        .backOff(.seconds(1)),
                    ]),
            ], on: machine)
        _ = machine.handle(.backOffEnded(woken: false, at: Self.t(0.6)))
        _ = machine.handle(.attemptFailed("no route to host", reached: false, at: Self.t(3.6)))
        #expect(!machine.probesLink, "a 1 s back-off is shorter than a probe's interval")
        for second in [4.6, 9.6] {
            _ = machine.handle(.backOffEnded(woken: false, at: Self.t(second)))
            _ = machine.handle(.attemptFailed("no route to host", reached: false, at: Self.t(second + 3)))
        }
        #expect(machine.probesLink, "a 4 s back-off after an unreachable host probes")
        Self.play(
            [
                Step(event: .linkAnswered, actions: [.wake]),
                Step(
                    event: .backOffEnded(woken: true, at: Self.t(14)), actions: [.logLinkBack, .connect(after: .zero)]),
                Step(event: .linkAnswered, actions: []),
            ], on: machine)
    }

    @Test("a rejection stops trying; with DNS-SD, only an announcement as paired elsewhere tries once more")
    func rejection() {
        let reason = "the pairing was removed on the accessory"
        let full = "\(reason); pair again with hap2mqtt pair"
        Self.play([
            Step(event: .start(unusable: nil, at: Self.t(0)), actions: [.connect(after: .zero)]),
            Step(
                event: .rejected(reason),
                actions: [
                    .resumeWaiters(connected: false), .reportRejected(reason), .reportFromCache(reason: full),
                    .awaitAnnouncementElsewhere,
                ], mayWait: false),
            Step(event: .announced(pairedElsewhere: false), actions: []),
            Step(event: .announced(pairedElsewhere: true), actions: [.wake]),
            Step(event: .announcedElsewhere(at: Self.t(5)), actions: [.logAnnouncedElsewhere, .connect(after: .zero)]),
            Step(event: .attemptSucceeded(at: Self.t(5.2)), actions: [.resumeWaiters(connected: true), .watch]),
        ])
        // Without DNS-SD, after a first sync: every accessory unreachable, and no step: the loop ends.
        Self.play(
            [
                Step(event: .start(unusable: nil, at: Self.t(0)), actions: [.connect(after: .zero)]),
                Step(event: .attemptSucceeded(at: Self.t(0.1)), actions: [.resumeWaiters(connected: true), .watch]),
                Step(
                    event: .sessionEnded("closed", accessories: [Self.lamp], quiet: nil, at: Self.t(60)),
                    actions: [
                        .logLost("closed"), .startGraceTimer(generation: 2, after: Self.grace), .connect(after: .zero),
                    ]),
                Step(
                    event: .rejected(reason),
                    actions: [
                        .resumeWaiters(connected: false), .reportRejected(reason), .reportAllUnreachable(reason: full),
                    ]),
                Step(event: .graceExpired(generation: 2), actions: []),
                Step(event: .announced(pairedElsewhere: true), actions: []),
            ], on: Self.machine(announcements: false))
    }

    @Test("an identity that cannot be loaded waits for it; an unreadable pairing never connects; stop ends everything")
    func identityUnusableAndStop() {
        Self.play([
            Step(event: .start(unusable: nil, at: Self.t(0)), actions: [.connect(after: .zero)]),
            Step(
                event: .identityUnusable("controller.json is missing"),
                actions: [
                    .resumeWaiters(connected: false), .reportFromCache(reason: "controller.json is missing"),
                    .awaitIdentity,
                ]),
            Step(event: .identityLoaded(at: Self.t(2)), actions: [.connect(after: .zero)]),
            Step(
                event: .attemptFailed("connection refused", at: Self.t(2.1)),
                actions: [
                    .resumeWaiters(connected: false), .logFailure(attempt: 1, reason: "connection refused"),
                    .backOff(.milliseconds(500)),
                ]),
            Step(event: .stop, actions: [.resumeWaiters(connected: false), .shutDown], mayWait: false),
            Step(event: .backOffEnded(woken: false, at: Self.t(2.6)), actions: []),
            Step(event: .stop, actions: []),
        ])
        Self.play([
            Step(
                event: .start(unusable: "pairing file damaged", at: Self.t(0)),
                actions: [.reportFromCache(reason: "pairing file damaged")]),
            Step(event: .announced(pairedElsewhere: true), actions: []),
        ])
    }
}
