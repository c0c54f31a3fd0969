import Foundation
import HAP2MQTTTesting
import HomeModel
import MQTT
import Testing

/// The connection to the accessory goes silent without being closed (no FIN: a lost network, a router or
/// accessory that forgot it): the first `/set` afterwards must go out on a new connection, not wait out its
/// 10 s and fail. The gateway reaches the real HAP-python bridge through `TCPProxy`, which black-holes it.
@Suite("hap2mqtt run with a real accessory: a connection dropped without a word", .serialized)
struct LiveSilentDropTests {
    @Test(
        "after the connection goes silent, the next /set is written on a new connection within the write time-out"
    )
    func setAfterSilentDrop() async throws {
        let (live, proxy) = try await LiveGateway.startBehindProxy()
        defer { proxy.stop() }
        let (observer, gateway, accessory) = (live.observer, live.gateway, live.accessory)

        proxy.blackHoleConnections()
        // A silent drop is noticed by what comes next; here nothing comes for a while, as when an idle
        // connection is forgotten (the keep-alive is every 30 s).
        try await eventually("the connection has been silent for 6 s", timeout: .seconds(30)) {
            proxy.longestQuiet >= .seconds(6)
        }
        await observer.clear()
        try await live.publish("hap2mqtt/light/lightbulb/brightness/set", "64")
        // homekit.write_timeout (10 s) bounds the write: a /set still waiting on the dead connection would
        // be answered with a time-out error instead.
        let result = try await live.next(on: "hap2mqtt/light/lightbulb/brightness/set/result")
        #expect(result.payloadString == #"{"status":"ok","value":64}"#, "\(gateway.log.suffix(3000))")
        #expect(try await accessory.value(accessory: "Light", characteristic: "Brightness") == .int(64))
        #expect(gateway.log.contains("was quiet and does not answer"))
        try await live.waitFor("hap2mqtt/light/lightbulb/brightness", "64")
        await live.stop()
    }
}
