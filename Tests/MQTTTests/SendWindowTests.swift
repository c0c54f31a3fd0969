import Foundation
import HAP2MQTTTesting
import Logging
import Testing

@testable import MQTT

/// `MQTTConfiguration.outbound.sendWindowBytes`: what libmosquitto may hold at once. Messages beyond it wait in the
/// client; these tests make the window small so that they do, and check that nothing is lost or reordered.
@Suite("The send window: a burst larger than the window")
struct SendWindowTests {
    private static func publisher(_ broker: MosquittoBroker, window: Int) async throws -> MQTTClient {
        var configuration = MQTTConfiguration(url: broker.url, clientID: "window-\(UUID().uuidString.prefix(6))")
        configuration.outbound.sendWindowBytes = window
        configuration.reconnectDelay = (.milliseconds(100), .milliseconds(300))
        let client = try MQTTClient(configuration: configuration, logger: Logger(label: "mqtt"))
        try await client.connect()
        return client
    }

    @Test(
        "3 MB at QoS 0 and 1 through a 16 KiB window arrive complete and in order; a message larger than the window goes too"
    )
    func burstThroughSmallWindow() async throws {
        let broker = try await MosquittoBroker()
        let subscriber = try await MQTTTestClient.connect(to: broker, subscribe: ["window/#"])
        let publisher = try await Self.publisher(broker, window: 16 * 1024)

        let filler = String(repeating: "x", count: 1000)
        var messages = (0..<3000).map { n in
            MQTTMessage(
                topic: "window/\(n % 40)", string: "\(n) \(filler)", qos: n % 2 == 0 ? .atLeastOnce : .atMostOnce)
        }
        messages.insert(
            MQTTMessage(
                topic: "window/big", string: "1500 " + String(repeating: "y", count: 100_000), qos: .atLeastOnce),
            at: 1500)
        try publisher.publish(messages)
        #expect(publisher.waitingCounts.backlog > 1000, "the window held most of the burst back")
        try await publisher.publishAndWait(MQTTMessage(topic: "window/end", string: "end", qos: .atLeastOnce))
        #expect(publisher.waitingCounts.backlog == 0, "an awaited publish returns after everything before it")

        _ = try await subscriber.waitFor(topic: "window/end", timeout: .seconds(20))
        let received = await subscriber.messages(on: "window/#").filter { $0.topic != "window/end" }
        let numbers = received.compactMap { $0.payloadString?.split(separator: " ").first.flatMap { Int($0) } }
        // The broker keeps order per QoS, not between QoS 0 and QoS 1 messages to one subscriber.
        var qos1 = Array(stride(from: 0, to: 3000, by: 2))
        qos1.insert(1500, at: 750)
        let receivedQoS1 = numbers.filter { $0 % 2 == 0 }
        let receivedQoS0 = numbers.filter { $0 % 2 == 1 }
        #expect(
            receivedQoS1.count == qos1.count && receivedQoS1 == qos1,
            "QoS 1: first difference at \(receivedQoS1.firstDifference(from: qos1) ?? -1)")
        let qos0 = Array(stride(from: 1, to: 3000, by: 2))
        #expect(
            receivedQoS0.count == qos0.count && receivedQoS0 == qos0,
            "QoS 0: first difference at \(receivedQoS0.firstDifference(from: qos0) ?? -1)")
        #expect(received.first { $0.topic == "window/big" }?.payload.count == 100_005)
        await publisher.disconnect()
        await subscriber.disconnect()
    }

    @Test("the broker goes away with messages waiting for the window: QoS 1 ones are sent after the restart, in order")
    func backlogSurvivesReconnect() async throws {
        let broker = try await MosquittoBroker()
        let publisher = try await Self.publisher(broker, window: 2 * 1024)
        let filler = String(repeating: "z", count: 500)
        let messages = (0..<2000).map { n in
            MQTTMessage(topic: "kept/\(n)", string: "\(n) \(filler)", qos: .atLeastOnce, retain: true)
        }
        await broker.stop()
        try publisher.publish(messages)  // still counted as connected until libmosquitto notices
        let waiting = publisher.waitingCounts
        #expect(waiting.backlog + waiting.offline > 1500)
        try await broker.restart()

        let observer = try await MQTTTestClient.connect(to: broker, subscribe: [])
        try await publisher.publishAndWait(
            MQTTMessage(topic: "kept/end", string: "end", qos: .atLeastOnce, retain: true))
        let waitingAfter = publisher.waitingCounts
        #expect(waitingAfter.backlog == 0 && waitingAfter.offline == 0)
        for n in [0, 1, 999, 1998, 1999] {
            #expect(try await observer.retained("kept/\(n)")?.payloadString?.hasPrefix("\(n) ") == true, "kept/\(n)")
        }
        await observer.disconnect()
        await publisher.disconnect()
    }
}

extension Array where Element: Equatable {
    /// The first index where the two arrays differ (in content or length), or nil when they are equal.
    fileprivate func firstDifference(from other: [Element]) -> Int? {
        zip(self, other).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? (count == other.count ? nil : Swift.min(count, other.count))
    }
}
