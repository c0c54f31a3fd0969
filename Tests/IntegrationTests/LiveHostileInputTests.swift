import Foundation
import HAP2MQTTTesting
import HomeModel
import MQTT
import Testing

/// `hap2mqtt run` with a real mosquitto and the HAP-python bridge, given commands meant to hurt
/// (docs/DESIGN.md "Hostile input", docs/security.md "What it refuses"): each is refused or answered alone,
/// and nothing refused reaches the accessory.
@Suite("hap2mqtt run with a real accessory: hostile commands", .serialized)
struct LiveHostileInputTests {
    @Test("a command with a bad response topic is refused whole: nothing is written, published or answered")
    func badResponseTopics() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        try await live.observer.subscribe(["r/#", "homeassistant/#"])
        // Wildcards go out with mosquitto_pub: this project's client refuses to send them. (An empty one
        // crashes mosquitto_pub; the Gateway tests cover it.)
        let bad = [
            "r/+", "r/#", "hap2mqtt/bridge/state", "homeassistant/light/hijack/config", "hap2mqtt/light/lightbulb/on",
            "elsewhere/replies",
        ]
        for (offset, responseTopic) in bad.enumerated() {
            let value = 61 + offset
            if responseTopic.contains(where: { $0 == "+" || $0 == "#" }) {
                try await ExternalTool.run(
                    "mosquitto_pub",
                    [
                        "-V", "5", "-h", "127.0.0.1", "-p", String(live.broker.port), "-q", "1", "-t",
                        "hap2mqtt/light/lightbulb/brightness/set",
                        "-m", String(value), "-D", "publish", "response-topic", responseTopic, "-D", "publish",
                        "correlation-data", "c\(offset)",
                    ])
            } else {
                let asked = MQTTProperties(responseTopic: responseTopic, correlationData: Array("c\(offset)".utf8))
                try await live.publish("hap2mqtt/light/lightbulb/brightness/set", String(value), properties: asked)
            }
        }
        // Commands are handled in order: once this one is answered, the bad ones were dropped.
        try await live.publish("hap2mqtt/light/lightbulb/brightness/set", "90")
        try await live.waitFor("hap2mqtt/light/lightbulb/brightness/set/result", #"{"status":"ok","value":90}"#)
        #expect(try await live.accessory.value(accessory: "Light", characteristic: "Brightness") == .int(90))
        let results = await live.observer.messages(on: "hap2mqtt/light/lightbulb/brightness/set/result")
        #expect(results.map(\.payloadString) == [#"{"status":"ok","value":90}"#], "only the good command was answered")
        let states = await live.observer.messages(on: "hap2mqtt/light/lightbulb/brightness").compactMap(\.payloadString)
        #expect(!states.contains { (61...66).contains(Int($0) ?? 0) }, "\(states)")
        #expect(await live.observer.messages(on: "r/#").isEmpty)
        #expect(await live.observer.messages(on: "homeassistant/light/hijack/config").isEmpty)
        #expect(
            await live.observer.messages(on: "hap2mqtt/bridge/state").drop { $0.bridgeState != "online" }.allSatisfy {
                $0.bridgeState == "online"
            })
        #expect(
            await live.observer.messages(on: "hap2mqtt/light/lightbulb/on").allSatisfy { $0.payloadString == "false" })
        #expect(live.gateway.log.contains("with the response topic"))
        #expect(!live.gateway.log.contains("a message was not published"), "no bad message reached the MQTT client")

        // An allowed one under <base>/response/ is answered there.
        try await live.observer.subscribe(["hap2mqtt/response/#"])
        try await live.publish(
            "hap2mqtt/light/lightbulb/brightness/set", "30",
            properties: MQTTProperties(responseTopic: "hap2mqtt/response/me"))
        try await live.waitFor("hap2mqtt/response/me", #"{"status":"ok","value":30}"#)
        await live.stop()
    }

    @Test(
        "/get of Identify is refused without a read, once in the log; 1e-400 and oversized commands are refused with the reason"
    )
    func refusedLocally() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        try await live.observer.subscribe(["hap2mqtt/response/#"])
        let asked = MQTTProperties(responseTopic: "hap2mqtt/response/get")
        for _ in 0..<5 {
            await live.observer.clear()
            try await live.publish("hap2mqtt/light/accessory_information/identify/get", "", properties: asked)
            let reply = try await live.next(on: "hap2mqtt/response/get")
            #expect(
                reply.payloadString
                    == #"{"status":"error","error":"identify: the characteristic is write-only and cannot be read","hap_status":-70405}"#
            )
        }
        let log = live.gateway.log
        #expect(
            log.components(separatedBy: "refused hap2mqtt/light/accessory_information/identify/get").count == 2,
            "logged once")
        #expect(!log.contains("read of"), "no read went to the accessory:\n\(log.suffix(2000))")

        let hueBefore = try await live.accessory.value(accessory: "Light", characteristic: "Hue")
        await live.observer.clear()
        try await live.publish("hap2mqtt/light/lightbulb/hue/set", "1e-400")
        let refused = try await live.next(on: "hap2mqtt/light/lightbulb/hue/set/result")
        #expect(
            refused.payloadString
                == #"{"status":"error","error":"hue: 1e-400 is too close to zero for a number: it would be written as 0"}"#
        )
        await live.observer.clear()
        try await live.publish("hap2mqtt/light/lightbulb/hue/set", "1e400")
        #expect(
            try await live.next(on: "hap2mqtt/light/lightbulb/hue/set/result").payloadString
                == #"{"status":"error","error":"hue: 1e400 is too large for a number: it would not be finite"}"#)

        await live.observer.clear()
        try await live.observer.publish(
            MQTTMessage(
                topic: "hap2mqtt/light/lightbulb/hue/set", payload: Array(repeating: UInt8(ascii: "1"), count: 100_000),
                qos: .atLeastOnce))
        #expect(
            try await live.next(on: "hap2mqtt/light/lightbulb/hue/set/result").payloadString
                == #"{"status":"error","error":"the payload is 100000 bytes; commands may be at most 65536 bytes (mqtt.max_command_size)"}"#
        )
        #expect(try await live.accessory.value(accessory: "Light", characteristic: "Hue") == hueBefore)
        #expect(
            live.accessory.setterCalls.isEmpty, "a refused write reached the accessory: \(live.accessory.setterCalls)")
        await live.stop()
    }
}
