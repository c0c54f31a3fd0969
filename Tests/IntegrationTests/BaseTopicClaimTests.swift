import Foundation
import Glibc
import HAP2MQTTTesting
import MQTT
import Testing

/// A gateway owns its base topic (docs/DESIGN.md "Owning the base topic"): real gateways, a real
/// mosquitto and the real HAP-python bridge.
@Suite("hap2mqtt run: the claim on the base topic")
struct BaseTopicClaimTests {
    @Test(
        "a second gateway on a live gateway's base topic refuses to start, naming the first, and publishes and clears nothing"
    )
    func secondGatewayRefused() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        let before = try await live.retainedSnapshot(["hap2mqtt/#", "homeassistant/#"])
        let first = try #require(try await live.observer.retained("hap2mqtt/bridge/state"))
        #expect(first.bridgeClaim == "held")
        let instance = try #require(first.bridgeInstance)
        let clientID = live.gateway.clientID
        let watcher = try await MQTTTestClient.connect(to: live.broker, subscribe: ["hap2mqtt/#", "homeassistant/#"])
        // The retained messages arrive before a marker published after the subscription.
        try await watcher.publish("hap2mqtt/test-marker", "start")
        _ = try await watcher.waitFor(topic: "hap2mqtt/test-marker") { $0.payloadString == "start" }
        await watcher.clear()

        let second = try GatewayProcess(brokerURL: live.broker.url)
        let refused = try await second.runCommand(["run"], timeout: .seconds(60))
        #expect(refused.status == 1, "\(refused.output)")
        let line = try #require(refused.output.split(separator: "\n").first { $0.hasPrefix("hap2mqtt: ") })
        #expect(line.contains("client id \(clientID)") && line.contains(ProcessInfo.processInfo.hostName))
        #expect(line.contains(instance) && line.contains("mqtt.base_topic"), "\(line)")

        // A gateway that claims publishes at least bridge/state: a marker published after the refused one
        // ended comes back with nothing before it.
        try await watcher.publish("hap2mqtt/test-marker", "end")
        _ = try await watcher.waitFor(topic: "hap2mqtt/test-marker") { $0.payloadString == "end" }
        let seen = await watcher.allMessages.map { "\($0.topic) \($0.payloadString ?? "")" }
        #expect(seen == ["hap2mqtt/test-marker end"])
        #expect(try await live.retainedSnapshot(["hap2mqtt/#", "homeassistant/#"]) == before)
        #expect(try await live.bridgeState() == "online")
        await watcher.disconnect()
        await live.stop()
    }

    @Test("a gateway restarted after SIGKILL, with its claim still held on the broker, starts again")
    func sameInstanceNeverRefused() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/bridge/state"])
        let gateway = try GatewayProcess(brokerURL: broker.url)
        try gateway.start()
        let online = try await observer.waitFor(topic: "hap2mqtt/bridge/state") { $0.bridgeState == "online" }
        await gateway.kill()
        _ = try await observer.waitFor(topic: "hap2mqtt/bridge/state") { $0.bridgeClaim == "released" }
        // What the broker holds when it has not noticed the kill yet (a half-open connection): the claim
        // the killed run held.
        let stale = try #require(online.payloadString)
        await observer.clear()
        try await observer.publish("hap2mqtt/bridge/state", stale, retain: true)
        _ = try await observer.waitFor(topic: "hap2mqtt/bridge/state") { $0.payloadString == stale }
        await observer.clear()
        try gateway.start()
        // The new run's own messages: its claim held while it starts, then online.
        _ = try await observer.waitFor(topic: "hap2mqtt/bridge/state", timeout: .seconds(60)) {
            $0.bridgeState == "offline" && $0.bridgeClaim == "held"
        }
        let again = try await observer.waitFor(topic: "hap2mqtt/bridge/state", timeout: .seconds(60)) {
            $0.bridgeState == "online"
        }
        #expect(again.bridgeInstance == online.bridgeInstance)
        #expect(gateway.log.contains("taken again"))
        await gateway.stop()
        #expect(gateway.terminationStatus == 0)
        await observer.disconnect()
        await broker.stop()
    }

    @Test(
        "a gateway whose claim was released by its last will is taken over, with a log line, and its topics are left as they are"
    )
    func deadClaimTakenOver() async throws {
        let live = try await LiveGateway.start()
        try await live.waitUntilOnline()
        let clientID = live.gateway.clientID
        await live.gateway.kill()
        let will = try await live.observer.waitFor(topic: "hap2mqtt/bridge/state", timeout: .seconds(15)) {
            $0.bridgeClaim == "released"
        }
        #expect(will.bridgeState == "offline")
        let before = try await live.retainedSnapshot()
        let accessoryTopics = before.keys.filter { !$0.hasPrefix("hap2mqtt/bridge/") }
        #expect(!accessoryTopics.isEmpty)

        let successor = try GatewayProcess(brokerURL: live.broker.url)
        try successor.start()
        let online = try await live.observer.waitFor(topic: "hap2mqtt/bridge/state", timeout: .seconds(60)) {
            $0.bridgeState == "online" && $0.bridgeInstance != will.bridgeInstance
        }
        #expect(online.bridgeClaim == "held")
        #expect(
            successor.log.contains("took over the base topic hap2mqtt/ from another gateway, client id \(clientID)"))
        let after = try await live.retainedSnapshot()
        for topic in accessoryTopics { #expect(after[topic] == before[topic], "\(topic) is the other instance's") }
        await successor.stop()
        #expect(successor.terminationStatus == 0, "\(successor.log.suffix(2000))")
        await live.stop()
    }

    @Test(
        "a gateway frozen until its last will was published, whose base topic another took over, stops when it comes back, publishing nothing"
    )
    func returningGatewayDoesNotFight() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/#"])
        // A short keep-alive: the broker publishes the last will 1.5 keep-alives after the last packet.
        let frozen = try GatewayProcess(brokerURL: broker.url, environment: ["HAP2MQTT_MQTT_KEEPALIVE": "5"])
        try frozen.start()
        let first = try await observer.waitFor(topic: "hap2mqtt/bridge/state", timeout: .seconds(60)) {
            $0.bridgeState == "online"
        }
        let pid = try #require(frozen.processIdentifier)
        #expect(Glibc.kill(pid, SIGSTOP) == 0)
        _ = try await observer.waitFor(topic: "hap2mqtt/bridge/state", timeout: .seconds(30)) {
            $0.bridgeClaim == "released" && $0.bridgeInstance == first.bridgeInstance
        }
        let successor = try GatewayProcess(brokerURL: broker.url)
        try successor.start()
        let taken = try await observer.waitFor(topic: "hap2mqtt/bridge/state", timeout: .seconds(60)) {
            $0.bridgeState == "online" && $0.bridgeInstance != first.bridgeInstance
        }
        await observer.clear()
        #expect(Glibc.kill(pid, SIGCONT) == 0)
        try await eventually("the frozen gateway to stop once it is back", timeout: .seconds(60)) { !frozen.isRunning }
        #expect(frozen.terminationStatus == 1, "\(frozen.log.suffix(3000))")
        #expect(frozen.log.contains("another gateway took the base topic hap2mqtt/ over while this one was cut off"))
        // Nothing from the frozen one since it came back: a marker after its end comes back alone.
        try await observer.publish("hap2mqtt/test-marker", "end")
        _ = try await observer.waitFor(topic: "hap2mqtt/test-marker")
        // The successor's own log lines (its take-over warning) may come on bridge/logging meanwhile.
        let messages = await observer.allMessages
        let seen = messages.filter { $0.topic != "hap2mqtt/bridge/logging" }.map(\.topic)
        #expect(seen == ["hap2mqtt/test-marker"], "\(seen)")
        #expect(!messages.contains { ($0.payloadString ?? "").contains("cut off") })
        let retained = try #require(try await observer.retained("hap2mqtt/bridge/state"))
        #expect(retained.payloadString == taken.payloadString)
        await successor.stop()
        await observer.disconnect()
        await broker.stop()
    }

    @Test("junk in the retained claim: a clear error, exit status 1, and nothing changed on the broker")
    func junkClaim() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/#", "homeassistant/#"])
        let junk = [
            "not json", #"{"state":"online","claim":"mine","instance":"x","client_id":"c","host":"h"}"#,
            #"{"state":"online","claim":"held","instance":7,"client_id":"c","host":"h"}"#, "[1,2]",
        ]
        for payload in junk {
            try await observer.publish("hap2mqtt/bridge/state", payload, retain: true)
            _ = try await observer.waitFor(topic: "hap2mqtt/bridge/state") { $0.payloadString == payload }
            await observer.clear()
            let gateway = try GatewayProcess(brokerURL: broker.url)
            let run = try await gateway.runCommand(["run"], timeout: .seconds(60))
            #expect(run.status == 1, "\(payload): \(run.output)")
            #expect(
                run.output.contains("the retained hap2mqtt/bridge/state is not a claim a gateway writes"),
                "\(payload): \(run.output)")
            try await observer.publish("hap2mqtt/test-marker", "end")
            _ = try await observer.waitFor(topic: "hap2mqtt/test-marker")
            #expect(await observer.allMessages.map(\.topic) == ["hap2mqtt/test-marker"], "\(payload)")
            #expect(try await observer.retained("hap2mqtt/bridge/state")?.payloadString == payload)
        }
        await observer.disconnect()
        await broker.stop()
    }
}
