import Foundation
import Gateway
import HAP2MQTTTesting
import Logging
import MQTT
import Testing

@Suite("bridge/logging, on the recording client")
struct GatewayLoggingTests {
    /// A logger labelled `label` whose every line goes to `logging`, as the program's log sink hands them.
    func logger(_ label: String, into logging: BridgeLogging) -> Logger {
        Logger(label: label, sink: LogSink(minimumLevel: .trace) { logging.append($0) })
    }

    /// The payloads published on `bridge/logging` so far, parsed.
    func lines(_ h: GatewayHarness) -> [[String: Any]] {
        h.mqtt.published.filter { $0.topic == "hap2mqtt/bridge/logging" }.compactMap(jsonObject)
    }

    @Test("lines at or above mqtt_log_level go to bridge/logging, not retained, as level, message and namespace")
    func levels() async throws {
        let logging = BridgeLogging(minimumLevel: .warning)
        try await withGatewayHarness(logging: logging) { h in
            try await h.waitUntilOnline()
            let hap = logger("hap", into: logging)
            hap.info("a quiet line")
            hap.warning("accessory \"Lamp\" did not answer")
            let message = try await h.mqtt.waitFor(topic: "hap2mqtt/bridge/logging")
            #expect(!message.retain && message.qos == .atMostOnce)
            #expect(
                message.payloadString
                    == #"{"level":"warning","message":"accessory \"Lamp\" did not answer","namespace":"hap"}"#)
            logging.minimumLevel = .info
            hap.info("now heard")
            try await eventually("the info line") { lines(h).contains { $0["message"] as? String == "now heard" } }
            #expect(!lines(h).contains { $0["message"] as? String == "a quiet line" })
            #expect(h.mqtt.retained("hap2mqtt/bridge/logging") == nil)
        }
    }

    @Test(
        "a flood is rate-limited: at most 20 lines in the first second, then a line says how many were dropped, and nothing is lost uncounted"
    )
    func flood() async throws {
        let logging = BridgeLogging(minimumLevel: .warning)
        try await withGatewayHarness(logging: logging) { h in
            try await h.waitUntilOnline()
            let gateway = logger("gateway", into: logging)
            for n in 1...500 { gateway.warning("line \(n)") }
            let summary = #/^(\d+) log lines dropped: bridge/logging carries at most 20 a second$/#
            try await eventually("the dropped lines are counted", timeout: .seconds(30)) {
                let all = lines(h)
                let dropped = all.compactMap { ($0["message"] as? String)?.wholeMatch(of: summary).map { Int($0.1)! } }
                let shown = all.filter { ($0["message"] as? String)?.hasPrefix("line ") == true }
                return shown.count + dropped.reduce(0, +) == 500
            }
            let all = lines(h)
            let firstSummary = try #require(
                all.firstIndex { ($0["message"] as? String)?.wholeMatch(of: summary) != nil })
            #expect(firstSummary <= 20)
            #expect(all[firstSummary]["level"] as? String == "warning")
            // The first lines of the flood are the ones kept: they say how it began.
            #expect(all.first?["message"] as? String == "line 1")
        }
    }

    @Test(
        "publishing a log line never logs into bridge/logging: what the MQTT client logs while it publishes is left out"
    )
    func notRecursive() async throws {
        let logging = BridgeLogging(minimumLevel: .trace)
        let mqttLogger = logger("mqtt", into: logging)
        try await withGatewayHarness(logging: logging) { h in
            try await h.waitUntilOnline()
            // As a client that logs what it sends would: here only for log lines, the case that could recur.
            h.mqtt.onPublish { messages in
                if messages.contains(where: { $0.topic == "hap2mqtt/bridge/logging" }) {
                    mqttLogger.debug("published a log line")
                }
            }
            let gateway = logger("gateway", into: logging)
            gateway.warning("first")
            try await eventually("the first line") { lines(h).contains { $0["message"] as? String == "first" } }
            gateway.warning("second")
            try await eventually("the second line") { lines(h).contains { $0["message"] as? String == "second" } }
            let messages = lines(h).compactMap { $0["message"] as? String }
            #expect(messages == ["first", "second"])
            h.mqtt.onPublish(nil)
        }
    }
}
