import HAP2MQTTTesting
import Testing

extension LiveGateway {
    /// Starts `hap2mqtt run` and waits until the home is synced, every accessory of the test bridge is
    /// online and a `/set` of the light is answered ok: the pairing in the state directory works.
    func startAndExpectEveryAccessoryReachable() async throws {
        try gateway.start()
        try await waitUntilOnline()
        for slug in LiveRecoveryTests.slugs {
            try await waitFor("hap2mqtt/\(slug)/availability", "online", timeout: .seconds(30))
        }
        try await publish("hap2mqtt/light/lightbulb/on/set", "true")
        let result = try await next(on: "hap2mqtt/light/lightbulb/on/set/result")
        #expect(result.payloadString == #"{"status":"ok","value":true}"#)
    }
}
