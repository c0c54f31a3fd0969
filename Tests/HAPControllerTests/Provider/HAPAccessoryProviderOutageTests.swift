import HAP2MQTTTesting
import HomeModel
import HomeStore
import Testing

@testable import HAPController

/// The provider behind a relay whose link the test takes down and brings back (docs/network.md): a real
/// HAP-python accessory, no fixed sleeps.
@Suite("HAP accessory provider through an outage of its link")
struct HAPAccessoryProviderOutageTests {
    @Test(
        "while the link is down a write fails at once, saying since when and the last error; the first write after it returns ends the back-off and succeeds"
    )
    func commandEndsBackoff() async throws {
        let setup = try await HAPAccessoryProviderLiveTests.Setup.start()
        let proxy = try TCPProxy(to: Int(setup.accessory.port))
        defer { proxy.stop() }
        // A back-off far longer than the test: only a command can end it.
        let settings = HAPProviderSettings(
            pollInterval: .seconds(3600), keepaliveInterval: .seconds(3600),
            backoff: ReconnectBackoff(initial: .seconds(120), maximum: .seconds(240)), catchupInterval: .seconds(3600))
        let (provider, events, accessories) = try await setup.provider(settings, port: UInt16(proxy.port))
        let brightness = try HAPAccessoryProviderLiveTests.light(accessories, .Characteristic.brightness)

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
        await setup.stop(provider)
    }
}
