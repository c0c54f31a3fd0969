import HomeModel
import HomeStore
import Testing

@testable import HAPController

/// Why a provider is offline, as the code `bridge/health` and `bridge/accessories` show
/// (`ProviderConnectionStateMachine.offlineReason`), through the connection's life.
@Suite("Provider offline reason")
struct ProviderOfflineReasonTests {
    typealias Machine = ProviderConnectionStateMachine

    static let origin = ContinuousClock.now
    static func t(_ seconds: Double) -> ContinuousClock.Instant { origin + .seconds(seconds) }
    static let lamp = AccessoryID(serverID: "AA:BB:CC:DD:EE:FF", aid: 1)

    static func machine() -> Machine {
        Machine(
            backoff: ReconnectBackoff(initial: .milliseconds(500), maximum: .seconds(60), jitter: 0),
            offlineGrace: .seconds(1), followsAnnouncements: false)
    }

    /// Events, each with the reason the machine must give after it.
    static let tables: [(name: String, steps: [(Machine.Event, OfflineReason?)])] = [
        (
            "first attempt, a host that does not answer, then one that refuses the session, then live",
            [
                (.start(unusable: nil, at: t(0)), .notConnectedYet),
                (.attemptFailed("no route to host", reached: false, at: t(1)), .unreachable),
                (.backOffEnded(woken: false, at: t(2)), .unreachable),
                (.attemptFailed("pair-verify failed", reached: true, at: t(3)), .connectionFailed),
                (.backOffEnded(woken: false, at: t(4)), .connectionFailed),
                (.attemptSucceeded(at: t(5)), nil),
                (.sessionEnded("closed", accessories: [lamp], quiet: nil, at: t(60)), .connectionLost),
                (.attemptSucceeded(at: t(61)), nil),
            ]
        ),
        (
            "rejected by the accessory",
            [(.start(unusable: nil, at: t(0)), .notConnectedYet), (.rejected("authentication"), .pairingRejected)]
        ),
        (
            "this controller's identity cannot be loaded",
            [(.start(unusable: nil, at: t(0)), .notConnectedYet), (.identityUnusable("damaged"), .identityUnusable)]
        ),
        ("the pairing's file is damaged", [(.start(unusable: "not JSON", at: t(0)), .pairingUnreadable)]),
        ("stopped", [(.start(unusable: nil, at: t(0)), .notConnectedYet), (.stop, .stopped)]),
    ]

    @Test("each state's reason", arguments: tables.indices)
    func table(_ index: Int) {
        var machine = Self.machine()
        #expect(machine.offlineReason == .notConnectedYet)
        for (event, reason) in Self.tables[index].steps {
            _ = machine.handle(event)
            #expect(machine.offlineReason == reason, "\(Self.tables[index].name): after \(event)")
        }
    }
}
