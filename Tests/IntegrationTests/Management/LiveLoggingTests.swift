import Foundation
import HAP2MQTTTesting
import MQTT
import Testing

/// `bridge/logging` through the real binary, a real mosquitto and the HAP-python bridge (docs/topics.md
/// "Managing the gateway over MQTT").
@Suite("hap2mqtt run: bridge/logging", .serialized)
struct LiveLoggingTests {
    @Test(
        "bridge/logging carries the lines at mqtt_log_level, not retained; pairing with a wrong code and then the right one logs nothing that holds either code"
    )
    func noSecrets() async throws {
        let live = try await LiveManagementTests.Unpaired.start(extraYAML: "mqtt_log_level: debug")
        let code = live.accessory.setupCode
        let wrong = code == "111-22-333" ? "111-22-334" : "111-22-333"
        var logged: [MQTTMessage] = []

        let refused = try await live.request(
            "pair", #"{"host":"127.0.0.1","port":\#(live.accessory.port),"code":"\#(wrong)"}"#)
        #expect(refused["error"] as? String == "wrong setup code: check the 8-digit code on the accessory")
        let failure = try await live.observer.waitFor(topic: "hap2mqtt/bridge/logging", timeout: .seconds(30)) {
            $0.payloadString?.contains("bridge/request/pair failed: wrong setup code") == true
        }
        #expect(
            failure.payloadString
                == #"{"level":"warning","message":"bridge/request/pair failed: wrong setup code: check the 8-digit code on the accessory","namespace":"gateway"}"#
        )
        logged += await live.observer.messages(on: "hap2mqtt/bridge/logging")

        try await live.pairOverMQTT(waitingFor: "light")
        logged += await live.observer.messages(on: "hap2mqtt/bridge/logging")
        #expect(logged.contains { $0.payloadString?.contains(#""level":"debug""#) == true })
        for message in logged {
            #expect(!message.retain)
            let line = try #require(
                (try? JSONSerialization.jsonObject(with: Data(message.payload))) as? [String: Any])
            #expect(Set(line.keys) == ["level", "message", "namespace"], "\(line)")
            for form in [
                wrong, code, wrong.replacingOccurrences(of: "-", with: ""),
                code.replacingOccurrences(of: "-", with: ""),
            ] {
                #expect(message.payloadString?.contains(form) == false, "a setup code on bridge/logging: \(line)")
            }
        }
        #expect(try await MQTTTestClient.retainedSnapshot(of: live.broker, ["hap2mqtt/bridge/logging"]).isEmpty)
        try await live.expectCodeNowhere()
        await live.stop()
    }
}
