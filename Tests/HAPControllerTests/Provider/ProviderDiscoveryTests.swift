import HAP2MQTTTesting
import HomeModel
import HomeStore
import Testing

@testable import HAPController

/// The HAP provider following announcements (docs/DESIGN.md "Availability and recovery"): a real HAP-python
/// accessory on loopback, announced through a browser the test drives. Avahi itself is in the namespace
/// tests (`Tests/IntegrationTests/Discovery`).
@Suite("HAP provider following DNS-SD announcements")
struct ProviderDiscoveryTests {
    /// A paired accessory with a provider that follows a discovery fed by the test.
    struct Rig {
        let accessory: HAPPythonAccessory
        let directory: TemporaryDirectory
        let controller: HAPController
        let pairing: Pairing
        let browser: FakeServiceBrowser
        let discovery: HAPDiscovery
        let provider: HAPAccessoryProvider
        let events: ProviderEvents
        let capture: LogCapture

        /// The instance name HAP-python would announce.
        var name: String { "hap2mqtt Test Bridge" }

        /// Announces the accessory as it is now (its port and c#), with `statusFlags`, at `port` (its own
        /// by default), under `instance` (its own name by default).
        func announce(port: UInt16? = nil, statusFlags: Int = 0, state: Int = 1, instance: String? = nil) async throws {
            let status = try await accessory.status()
            browser.send(
                .found(
                    .hap(
                        instance ?? name, id: pairing.accessoryPairingID, port: port ?? accessory.port,
                        configuration: status.configVersion,
                        state: state, statusFlags: statusFlags)))
        }

        /// Stops the accessory as a power-off with notice: its zeroconf says goodbye, and the daemon reports
        /// the service gone.
        func stopAccessory() async {
            await accessory.stop()
            browser.send(.removed(name: name))
        }

        /// The pairing as the state directory holds it.
        var storedPairing: Pairing? { try? controller.store.pairing(accessoryPairingID: pairing.accessoryPairingID) }

        func stop() async {
            await provider.stop()
            await discovery.stop()
            await accessory.stop()
            directory.remove()
        }
    }

    /// Quiet polls and keep-alives; a back-off of 100 to 200 s, so that a reconnection within a minute
    /// can only come from an announcement.
    static let settings = HAPProviderSettings(
        pollInterval: .seconds(3600), keepaliveInterval: .seconds(3600),
        backoff: ReconnectBackoff(initial: .seconds(100), maximum: .seconds(200)))

    /// Pairs a fresh accessory, announces it, starts the provider and waits for its first sync. With
    /// `storedPort`, that port is the pairing's address instead (in its file too), and the provider is
    /// started without an announcement or a wait.
    static func rig(settings: HAPProviderSettings = settings, storedPort: UInt16? = nil) async throws -> Rig {
        let accessory = try await HAPPythonAccessory.start()
        let directory = try TemporaryDirectory()
        let capture = LogCapture()
        let controller = HAPController(stateDirectory: directory.stateDirectory, logger: capture.logger(label: "hap"))
        var pairing = try await controller.pair(
            host: "127.0.0.1", port: accessory.port, setupCode: try SetupCode(accessory.setupCode))
        if let storedPort {
            pairing.port = storedPort
            try controller.saveAddress(HAPEndpoint(host: "127.0.0.1", port: storedPort), of: pairing)
        }
        let browser = FakeServiceBrowser()
        let discovery = HAPDiscovery(browser: browser, logger: capture.logger(label: "discovery"))
        try await discovery.start(waitingForDaemon: false)
        let provider = HAPAccessoryProvider(
            controller: controller, pairing: pairing, settings: settings, discovery: discovery,
            logger: capture.logger(label: "hap"))
        let rig = Rig(
            accessory: accessory, directory: directory, controller: controller, pairing: pairing, browser: browser,
            discovery: discovery,
            provider: provider, events: ProviderEvents(provider.events), capture: capture)
        guard storedPort == nil else {
            await provider.start()
            return rig
        }
        try await rig.announce()
        try await eventually("the announcement") { await discovery.advertisements.count == 1 }
        await provider.start()
        // Generous: on a loaded machine the fixture's first answers can take long.
        _ = try await rig.events.wait(count: 2, timeout: .seconds(120))
        #expect(
            await rig.events.summaries == ["synced [1, 2, 3, 4, 5, 6, 8]", "reachability [1, 2, 3, 4, 5, 6, 8] true"])
        return rig
    }

    @Test("an accessory back on another port it announces is reconnected there at once, and the pairing file follows")
    func followsNewPort() async throws {
        let rig = try await Self.rig()
        let oldPort = rig.accessory.port
        await rig.stopAccessory()
        _ = try await rig.events.wait(count: 3)
        #expect(await rig.events.summaries.last == "reachability [1, 2, 3, 4, 5, 6, 8] false")

        let newPort = try await rig.accessory.startOnAnotherPort()
        try await rig.announce()
        _ = try await rig.events.wait(count: 5, timeout: .seconds(60))
        #expect(
            await rig.events.summaries.suffix(2) == [
                "synced [1, 2, 3, 4, 5, 6, 8]", "reachability [1, 2, 3, 4, 5, 6, 8] true",
            ])
        #expect(rig.storedPairing?.port == newPort && rig.storedPairing?.host == "127.0.0.1")
        #expect(rig.controller.isFollowedAddress(of: try #require(rig.storedPairing)))
        #expect(rig.capture.lines.contains { $0.contains("moved from 127.0.0.1:\(oldPort) to 127.0.0.1:\(newPort)") })
        #expect(
            rig.capture.lines.contains { $0.contains("announced itself at 127.0.0.1:\(newPort); reconnecting now") })
        await rig.stop()
    }

    @Test(
        "an accessory stopped and started again is reconnected as soon as it announces itself, not after its back-off")
    func returnSkipsBackoff() async throws {
        let rig = try await Self.rig()
        await rig.stopAccessory()
        _ = try await rig.events.wait(count: 3)
        try await eventually("the back-off wait of 80 s or more") {
            rig.capture.lines.contains { $0.contains("reconnecting in") }
        }
        try await rig.accessory.start()
        try await rig.announce()
        // Without the announcement the next attempt would come 80 s or more after the connection was lost.
        _ = try await rig.events.wait(count: 5, timeout: .seconds(60))
        #expect(await rig.events.summaries.last == "reachability [1, 2, 3, 4, 5, 6, 8] true")
        #expect(rig.storedPairing?.port == rig.pairing.port, "the same address: nothing to save")
        await rig.stop()
    }

    @Test(
        "an impostor announcing the paired id elsewhere changes nothing: the live connection stays, and it is logged once when tried"
    )
    func impostor() async throws {
        let rig = try await Self.rig(
            settings: HAPProviderSettings(
                pollInterval: .seconds(3600), keepaliveInterval: .seconds(3600),
                backoff: ReconnectBackoff(initial: .milliseconds(200), maximum: .milliseconds(400))))
        let impostor = try await HAPPythonAccessory.start(pairingID: rig.pairing.accessoryPairingID)
        // Under a name of its own, as another device would announce itself.
        try await rig.announce(port: impostor.port, instance: "Impostor")
        try await eventually("the provider to have checked its connection after the announcement") {
            let heard = await rig.provider.announcement?.port == impostor.port
            let working = await rig.provider.announcedWork.running
            return heard && !working
        }
        #expect(await rig.provider.isConnected)
        #expect(await rig.events.items.count == 2, "nothing offline: the connection to the real accessory answers")

        await rig.stopAccessory()
        _ = try await rig.events.wait(count: 3)
        try await eventually("several attempts at both addresses", timeout: .seconds(60)) {
            rig.capture.lines.filter { $0.contains("still cannot connect") }.count >= 3
        }
        let lines = rig.capture.lines
        #expect(
            lines.filter { $0.contains("is announced at 127.0.0.1:\(impostor.port), but pair-verify there failed") }
                .count == 1, "\(lines)")
        #expect(
            !lines.contains { $0.contains("no longer accepts this controller") },
            "an impostor cannot make the accessory look reset")
        #expect(rig.storedPairing?.port == rig.pairing.port)

        try await rig.accessory.start()
        try await rig.announce()
        _ = try await rig.events.wait(count: 5, timeout: .seconds(60))
        #expect(await rig.events.summaries.last == "reachability [1, 2, 3, 4, 5, 6, 8] true")
        await impostor.stop()
        await rig.stop()
    }

    @Test(
        "a new c# re-fetches the accessories on the open connection: removed and added ones are reconciled, nothing goes offline"
    )
    func configurationChange() async throws {
        let rig = try await Self.rig()
        try await rig.accessory.removeAccessory("Switch")
        try await rig.announce()
        _ = try await rig.events.wait(count: 3)
        #expect(await rig.events.summaries.last == "synced [1, 2, 4, 5, 6, 8]")

        let added = try await rig.accessory.addAccessory("Porch", kind: .light)
        try await rig.announce()
        _ = try await rig.events.wait(count: 4)
        let porch = try #require(added.accessories["Porch"])
        #expect(await rig.events.summaries.last == "synced \([1, 2, 4, 5, 6, 8, porch].sorted())")
        #expect(await rig.events.summaries.allSatisfy { !$0.hasSuffix("false") }, "nothing offline")
        #expect(await rig.provider.isConnected)
        #expect(
            rig.capture.lines.contains { $0.contains("changed its configuration") && $0.contains("1 added, 0 removed") }
        )

        // The new accessory's events arrive over the same connection.
        try await rig.accessory.setValue(accessory: "Porch", characteristic: "On", value: .bool(true))
        _ = try await rig.events.wait(count: 5)
        let last = try #require(await rig.events.summaries.last)
        #expect(last.hasPrefix("values \(porch).") && last.hasSuffix("=true event"), "\(last)")
        await rig.stop()
    }

    @Test("a new s# re-reads the values")
    func stateNumber() async throws {
        let rig = try await Self.rig()
        try await rig.announce(state: 2)
        try await eventually("the re-read") {
            rig.capture.lines.contains { $0.contains("state number") && $0.contains("re-read") }
        }
        #expect(await rig.events.summaries.allSatisfy { !$0.hasSuffix("false") })
        await rig.stop()
    }

    @Test(
        "an unpaired accessory at the stored address refuses the controller; the paired one announced as paired elsewhere is reconnected there"
    )
    func storedAddressTakenByAnother() async throws {
        // Unpaired, where the paired accessory used to be: it answers pair-verify M1 with Authentication.
        let other = try await HAPPythonAccessory.start()
        let rig = try await Self.rig(storedPort: other.port)
        #expect(rig.storedPairing?.port == other.port)
        try await eventually("the refusal", timeout: .seconds(60)) {
            rig.capture.lines.contains { $0.contains("no longer accepts this controller") }
        }
        #expect(
            rig.capture.lines.contains { $0.contains("unless it is announced as paired at another address") },
            "\(rig.capture.lines)")

        // Announced as not paired: nothing to try.
        try await rig.announce(statusFlags: 1)
        try await eventually("the announcement") { await rig.provider.announcement?.isPaired == false }
        #expect(!rig.capture.lines.contains { $0.contains("trying pair-verify there") })

        try await rig.announce()
        try await eventually("reachable at the announced address", timeout: .seconds(60)) {
            await rig.events.summaries.last == "reachability [1, 2, 3, 4, 5, 6, 8] true"
        }
        #expect(await rig.events.summaries.contains("synced [1, 2, 3, 4, 5, 6, 8]"))
        #expect(
            rig.capture.lines.contains {
                $0.contains("moved from 127.0.0.1:\(other.port) to 127.0.0.1:\(rig.accessory.port)")
            })
        #expect(rig.storedPairing?.port == rig.accessory.port)
        await other.stop()
        await rig.stop()
    }

    @Test("a reset accessory announcing sf=1: the pair-again error with --id, and offline with that reason")
    func reset() async throws {
        let rig = try await Self.rig()
        try await rig.accessory.resetPairings()
        try await rig.announce(statusFlags: 1)
        let reason = "the pairing was removed on the accessory; pair again with hap2mqtt pair"
        try await eventually("offline with the reason", timeout: .seconds(60)) {
            await rig.events.items.contains { if case .reachability(_, false, reason) = $0 { true } else { false } }
        }
        try await eventually("the error") {
            rig.capture.lines.contains { $0.contains("no longer accepts this controller") }
        }
        #expect(
            rig.capture.lines.contains {
                $0.contains("Pair again with hap2mqtt pair --id \(rig.pairing.accessoryPairingID)")
            })
        await rig.stop()
    }
}
