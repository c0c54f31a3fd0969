import HAP2MQTTTesting
import HomeModel
import HomeStore
import Logging
import Synchronization
import Testing

@testable import HAPController

/// `HAPDiscovery` on a browser the test drives: what it keeps, whom it tells, and what it does with
/// floods and nonsense (docs/DESIGN.md "Hostile input").
@Suite("HAP discovery")
struct HAPDiscoveryTests {
    static let id = "AA:BB:CC:DD:EE:01"

    static func started(
        _ browser: FakeServiceBrowser, paired: Set<String> = [], capture: LogCapture = LogCapture(),
        limits: HAPDiscovery.Limits = .init()
    ) async throws -> HAPDiscovery {
        let discovery = HAPDiscovery(
            browser: browser, pairedIDs: { paired }, logger: capture.logger(label: "discovery"), limits: limits)
        try await discovery.start(waitingForDaemon: false)
        return discovery
    }

    @Test("keeps what is announced, tells the listeners of one id about changes only, and forgets what goes")
    func announcements() async throws {
        let browser = FakeServiceBrowser()
        let discovery = try await Self.started(browser)
        let stream = await discovery.announcements(for: Self.id.lowercased())
        let heard = Recorder<HAPAdvertisement>()
        let listener = Task { for await a in stream { heard.append(a) } }
        defer { listener.cancel() }

        browser.send(.browsing, .found(.hap("Bridge", id: Self.id, port: 51826, configuration: 1)))
        browser.send(.found(.hap("Bridge", id: Self.id, port: 51826, configuration: 1)))  // the same again: nothing new
        browser.send(.found(.hap("Other", id: "11:22:33:44:55:66", port: 80)))
        browser.send(.found(.hap("Bridge", id: Self.id, port: 51826, configuration: 2)))
        try await eventually("two announcements of the id") { heard.elements.count == 2 }
        #expect(heard.elements.map(\.configurationNumber) == [1, 2])
        #expect(await discovery.advertisements.map(\.name) == ["Bridge", "Other"])
        #expect(await discovery.advertisements(for: Self.id).map(\.configurationNumber) == [2])

        browser.send(.removed(name: "Bridge"))
        try await eventually("the removal") { await discovery.advertisements.map(\.name) == ["Other"] }
        browser.send(.unavailable(reason: "the daemon is not running"))
        try await eventually("everything to be forgotten with the daemon") { await discovery.advertisements.isEmpty }
        await discovery.stop()
        #expect(!browser.isBrowsing)
    }

    @Test("the accessories not paired here are a list that says what changed, paired elsewhere or not")
    func list() async throws {
        let browser = FakeServiceBrowser()
        let discovery = try await Self.started(browser, paired: ["aa:bb:cc:dd:ee:01"])
        let changes = await discovery.discoveredAccessoryChanges()
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next() == [])

        browser.send(.found(.hap("Bridge", id: Self.id, port: 51826)))
        browser.send(
            .found(
                .hap(
                    "Lamp", id: "11:22:33:44:55:66", port: 80, addresses: ["10.0.0.5"], statusFlags: 1, category: 5,
                    model: "LB1")))
        browser.send(.found(.hap("Lock", id: "22:33:44:55:66:77", port: 81, statusFlags: 0, category: 6)))
        let list = try #require(await iterator.next())
        #expect(
            list == [
                DiscoveredAccessory(
                    id: "11:22:33:44:55:66", name: "Lamp", model: "LB1", category: .lightbulb, addresses: ["10.0.0.5"],
                    port: 80, pairedElsewhere: false),
                DiscoveredAccessory(
                    id: "22:33:44:55:66:77", name: "Lock", model: "Bridge", category: AccessoryCategory(rawValue: 6),
                    addresses: ["127.0.0.1"], port: 81, pairedElsewhere: true),
            ])
        #expect(await discovery.discoveredAccessories() == list)
        browser.send(.removed(name: "Lock"))
        #expect(await iterator.next()?.map(\.name) == ["Lamp"])
        await discovery.stop()
        #expect(await iterator.next() == nil, "the stream ends with discovery")
    }

    @Test(
        "thousands of announcements a second: bounded services (a paired accessory still gets in), one log line per accessory per minute"
    )
    func flood() async throws {
        let browser = FakeServiceBrowser()
        let capture = LogCapture()
        let discovery = try await Self.started(browser, capture: capture, limits: .init(maximumServices: 100))
        let listener = await discovery.announcements(for: Self.id)
        let heard = Recorder<HAPAdvertisement>()
        let task = Task { for await a in listener { heard.append(a) } }
        defer { task.cancel() }
        for round in 0..<20 {
            for n in 0..<250 {
                let id = String(format: "%02X:00:00:00:%02X:%02X", round, n / 256, n % 256)
                browser.send(.found(.hap("Flood \(round)-\(n)", id: id, port: UInt16(1000 + n))))
            }
            // The same accessory, changing all the time; and services that vanish before they resolve.
            browser.send(.found(.hap("Bridge", id: Self.id, port: 51826, configuration: round + 1)))
            browser.send(.removed(name: "never seen \(round)"), .found(.hap("No id \(round)", id: nil, port: 1)))
        }
        // The last round's nameless service is sent after the bridge's last change: wait for both.
        try await eventually("the last change of the bridge to be kept and heard", timeout: .seconds(60)) {
            await discovery.advertisements(for: Self.id).first?.configurationNumber == 20
                && heard.elements.last?.configurationNumber == 20
                && capture.lines.contains { $0.contains("\"No id 19\"") }
        }
        #expect(await discovery.advertisements.count == 100)
        #expect(heard.elements.count <= 20)
        let lines = capture.lines
        #expect(lines.filter { $0.contains(Self.id) }.count == 1, "\(lines.filter { $0.contains(Self.id) })")
        #expect(lines.filter { $0.contains("more than 100 HomeKit services") }.count == 1)
        for round in [0, 7, 19] {
            #expect(lines.filter { $0.contains("\"No id \(round)\"") }.count == 1)
        }
        #expect(lines.count < 200, "\(lines.count) lines for 5,000 services")
        await discovery.stop()
    }

    @Test(
        "run logs an accessory ready to pair with the command that pairs it, once a minute; not one paired here or elsewhere"
    )
    func readyToPair() async throws {
        let browser = FakeServiceBrowser()
        let capture = LogCapture()
        let discovery = HAPDiscovery(
            browser: browser, pairedIDs: { ["22:33:44:55:66:77"] }, pairingHint: " --config '/etc/hap 2mqtt.yaml'",
            logger: capture.logger(label: "discovery"))
        try await discovery.start(waitingForDaemon: false)
        browser.send(
            .found(.hap("Lamp", id: "11:22:33:44:55:66", port: 80, statusFlags: 1, category: 5)),
            .found(.hap("Lamp", id: "11:22:33:44:55:66", port: 81, statusFlags: 1, category: 5)),
            .found(.hap("Mine", id: "22:33:44:55:66:77", port: 82, statusFlags: 1)),
            .found(.hap("Theirs", id: "33:44:55:66:77:88", port: 83, statusFlags: 0)),
            .found(.hap("Last", id: "44:55:66:77:88:99", port: 84)))
        try await eventually("every announcement") { await discovery.advertisements.count == 4 }
        let hints = capture.records(.info, containing: "pair it with")
        #expect(
            hints.map(\.message) == [
                "found \"Lamp\" (11:22:33:44:55:66, lightbulb) at 127.0.0.1:80, not paired: "
                    + "pair it with hap2mqtt pair --id 11:22:33:44:55:66 --config '/etc/hap 2mqtt.yaml'"
            ])
        #expect(
            capture.lines.filter { $0.contains("Lamp") }.count == 1,
            "the change of port within the minute is not logged again")
        #expect(
            capture.records(.debug, containing: "\"Mine\"").count == 1
                && capture.records(.debug, containing: "\"Theirs\"").count == 1)

        // The commands print what they find: without a hint, every accessory gets the debug line alone.
        let quiet = LogCapture()
        let command = HAPDiscovery(browser: FakeServiceBrowser(), logger: quiet.logger(label: "discovery"))
        try await command.start(waitingForDaemon: false)
        await command.handle(.found(.hap("Lamp", id: "11:22:33:44:55:66", port: 80, statusFlags: 1)))
        #expect(
            quiet.records(.info, containing: "pair it with").isEmpty
                && quiet.records(.debug, containing: "\"Lamp\"").count == 1)
        await command.stop()
        await discovery.stop()
    }

    @Test("a daemon that cannot be reached: an error for a command; the gateway says so once and tries again")
    func unavailable() async throws {
        let browser = FakeServiceBrowser(unavailable: "Daemon not running")
        let discovery = HAPDiscovery(browser: browser, logger: LogCapture().logger(label: "discovery"))
        await #expect(throws: DiscoveryError.daemonUnavailable(reason: "Daemon not running")) {
            try await discovery.start(waitingForDaemon: false)
        }
        #expect(
            DiscoveryError.daemonUnavailable(reason: "Daemon not running").description.contains(
                "systemctl start avahi-daemon"))

        let capture = LogCapture()
        let gateway = HAPDiscovery(
            browser: browser, logger: capture.logger(label: "discovery"),
            limits: .init(retryInterval: .milliseconds(50)))
        try await gateway.start(waitingForDaemon: true)
        try await eventually("a few tries") { browser.browses >= 4 }
        browser.setUnavailable(nil)
        try await eventually("browsing") { browser.isBrowsing }
        browser.send(.found(.hap("Bridge", id: Self.id, port: 1)))
        try await eventually("the announcement") { await gateway.advertisements.count == 1 }
        let lines = capture.lines
        #expect(lines.filter { $0.contains("DNS-SD discovery is off") }.count == 1, "\(lines)")
        #expect(lines.contains { $0.contains("can be reached again") })
        await gateway.stop()
    }

    @Test(
        "a pair by id while the daemon cannot be reached fails at once, saying why, instead of waiting for an announcement"
    )
    func pairByIDWithoutDaemon() async throws {
        let browser = FakeServiceBrowser(unavailable: "Daemon not running")
        let discovery = HAPDiscovery(
            browser: browser, logger: LogCapture().logger(label: "discovery"),
            limits: .init(retryInterval: .seconds(60)))
        try await discovery.start(waitingForDaemon: true)
        try await eventually("the first browse") { await discovery.unavailableReason != nil }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let controller = HAPController(stateDirectory: directory.stateDirectory, logger: Logger(label: "hap"))
        let pairing = HAPAccessoryPairing(
            controller: controller, discovery: discovery, discoveryLogger: Logger(label: "discovery"))
        await #expect(
            throws: ManagementError.unreachable(
                "no announcement can be heard while \(DiscoveryError.daemonUnavailable(reason: "Daemon not running")): give its host and port"
            )
        ) {
            try await pairing.pair(PairRequest(id: Self.id, code: EnteredSetupCode("031-45-154")))
        }
        await discovery.stop()
    }
}
