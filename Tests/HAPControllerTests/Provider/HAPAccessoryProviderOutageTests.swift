import HAP2MQTTTesting
import HomeModel
import HomeStore
import Testing

@testable import HAPController

/// The provider behind a relay whose link the test takes down and brings back (docs/network.md): a real
/// HAP-python accessory, no fixed sleeps.
@Suite("HAP accessory provider through an outage of its link")
struct HAPAccessoryProviderOutageTests {
    /// A paired accessory behind a relay, and a started provider connected through it.
    struct Rig {
        let setup: HAPAccessoryProviderLiveTests.Setup
        let proxy: TCPProxy
        let provider: HAPAccessoryProvider
        let events: ProviderEvents
        let brightness: CharacteristicAddress

        /// With a back-off far longer than the test: only a command can end it.
        static func start() async throws -> Rig {
            let setup = try await HAPAccessoryProviderLiveTests.Setup.start()
            let proxy = try TCPProxy(to: Int(setup.accessory.port))
            let settings = HAPProviderSettings(
                pollInterval: .seconds(3600), keepaliveInterval: .seconds(3600),
                backoff: ReconnectBackoff(initial: .seconds(120), maximum: .seconds(240)),
                catchupInterval: .seconds(3600))
            let (provider, events, accessories) = try await setup.provider(settings, port: UInt16(proxy.port))
            let brightness = try HAPAccessoryProviderLiveTests.light(accessories, .Characteristic.brightness)
            return Rig(setup: setup, proxy: proxy, provider: provider, events: events, brightness: brightness)
        }

        func stop() async {
            proxy.stop()
            await setup.stop(provider)
        }
    }

    @Test(
        "a write whose answer is lost is unconfirmed by its deadline, and read back on the next session; a write that never went out is not"
    )
    func unansweredWrite() async throws {
        let rig = try await Rig.start()
        let (setup, proxy, provider, events, brightness) = (
            rig.setup, rig.proxy, rig.provider, rig.events, rig.brightness
        )
        // The request reaches the accessory, which carries it out; the answer is lost.
        proxy.linkDown(true, silently: true, refusing: true, passingRequests: true)
        let sent = ContinuousClock.now
        let lost = await provider.write(
            [CharacteristicWrite(address: brightness, value: .int(35))], deadline: sent + .seconds(2))
        let took = ContinuousClock.now - sent
        guard case .failure(.unconfirmed(let why))? = lost[brightness] else {
            Issue.record("a write sent without an answer is unconfirmed: \(lost)")
            return
        }
        #expect(why == "the accessory did not answer PUT /characteristics within 2 s; the connection was reset")
        // By its deadline (2 s), not the connection's own request time-out (10 s); a busy machine may add
        // a little.
        #expect(took < HAPConnection.defaultRequestTimeout, "answered by its deadline: \(took)")
        #expect(try await setup.accessory.value(accessory: "Light", characteristic: "Brightness") == .int(35))
        // The connection is gone and no new one comes while the link is down: nothing is sent.
        let unsent = await provider.write(
            [CharacteristicWrite(address: brightness, value: .int(80))], deadline: .now + .milliseconds(500))
        guard case .failure(let error)? = unsent[brightness], error.hapStatus == .serviceCommunicationFailure else {
            Issue.record("a write that never went out fails as not sent: \(unsent)")
            return
        }

        // The link's return ends the back-off (a probe finds it); the new session reads the write back.
        proxy.linkDown(false)
        let settled = "settled 2.\(brightness.iid)=35 (written 35)"
        try await eventually("the write is read back", timeout: .seconds(60)) {
            await events.summaries.contains(settled)
        }
        #expect(try await setup.accessory.value(accessory: "Light", characteristic: "Brightness") == .int(35))
        let summaries = await events.summaries
        let readBack = try #require(summaries.firstIndex(of: settled))
        #expect(summaries[readBack - 1] == "values 2.\(brightness.iid)=35 read", "\(summaries)")
        await rig.stop()
    }

    @Test(
        "while the link is down a write fails at once, saying since when and the last error; the first write after it returns ends the back-off and succeeds"
    )
    func commandEndsBackoff() async throws {
        let rig = try await Rig.start()
        let (setup, proxy, provider, events, brightness) = (
            rig.setup, rig.proxy, rig.provider, rig.events, rig.brightness
        )

        proxy.linkDown(true)
        _ = try await setup.log.waitFor(.debug, containing: "reconnecting in")
        let sent = ContinuousClock.now
        let down = await provider.write([CharacteristicWrite(address: brightness, value: .int(30))])
        let took = ContinuousClock.now - sent
        guard case .failure(.unreachable(let why))? = down[brightness] else {
            Issue.record("a write while the link is down fails as unreachable: \(down)")
            return
        }
        #expect(why.contains("offline since ") && why.contains("last error: "), "\(why)")
        #expect(took < .seconds(10), "it did not wait for the write time-out or the back-off: \(took)")

        proxy.linkDown(false)
        let up = await provider.write([CharacteristicWrite(address: brightness, value: .int(64))])
        #expect(up[brightness] == .success(nil), "the first write after the link returns: \(up)")
        #expect(try await setup.accessory.value(accessory: "Light", characteristic: "Brightness") == .int(64))
        #expect(!setup.log.records(.info, containing: "ends the back-off; reconnecting now").isEmpty)
        let summaries = await events.summaries
        #expect(summaries.last { $0.hasPrefix("reachability") }?.hasSuffix("true") == true, "\(summaries)")
        await rig.stop()
    }

    @Test(
        "a write on a connection gone silent is not sent on it: it fails saying why, not as a write the accessory did not answer, and the accessory never carries it out"
    )
    func silentLink() async throws {
        let rig = try await Rig.start()
        let (setup, proxy, provider, brightness) = (rig.setup, rig.proxy, rig.provider, rig.brightness)
        let before = try await setup.accessory.value(accessory: "Light", characteristic: "Brightness")
        // Quiet long enough that a write checks the connection first.
        try await eventually("the connection is quiet", timeout: .seconds(60)) {
            proxy.longestQuiet >= HAPAccessoryProvider.quietBeforeCheck
        }

        proxy.linkDown(true, silently: true)
        let sent = ContinuousClock.now
        let result = await provider.write([
            CharacteristicWrite(address: brightness, value: .int(before == .int(13) ? 14 : 13))
        ])
        let took = ContinuousClock.now - sent
        guard case .failure(.unreachable(let why))? = result[brightness] else {
            Issue.record("a write that was never sent fails as unreachable, not as timed out: \(result)")
            return
        }
        #expect(why.contains("offline since ") && why.contains("last error: "), "\(why)")
        #expect(took < .seconds(10), "within the store's write time-out: \(took)")

        proxy.linkDown(false)
        // A read asks for the reconnect as a write does; the value must be the one from before.
        try await eventually("the provider is back", timeout: .seconds(60)) {
            if case .success? = await provider.read([brightness])[brightness] { return true }
            return false
        }
        #expect(await provider.read([brightness])[brightness] == .success(before))
        #expect(try await setup.accessory.value(accessory: "Light", characteristic: "Brightness") == before)
        await rig.stop()
    }

    @Test(
        "with the accessory's port closed, the back-off probes the link: it is back within seconds of the port, without a command"
    )
    func probeEndsBackoff() async throws {
        let rig = try await Rig.start()
        // A session that ends within a second of its sync backs off at once, with no attempt to learn from:
        // the rule itself needs a session older than that.
        let synced = ContinuousClock.now
        try await eventually("the session is older than a second") {
            ContinuousClock.now - synced > ProviderConnectionStateMachine.healthySession * 2
        }
        rig.proxy.linkDown(true, refusing: true)
        _ = try await rig.setup.log.waitFor(.debug, containing: "reconnecting in")
        #expect(!(await rig.provider.isConnected))
        rig.proxy.linkDown(false)
        _ = try await rig.setup.log.waitFor(.info, containing: "again; reconnecting now", timeout: .seconds(60))
        try await eventually("connected again", timeout: .seconds(60)) { await rig.provider.isConnected }
        await rig.stop()
    }
}
