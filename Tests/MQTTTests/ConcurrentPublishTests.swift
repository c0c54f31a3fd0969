import Foundation
import HAP2MQTTTesting
import MQTT
import Synchronization
import Testing

@Suite("Publishing from many threads at once")
struct ConcurrentPublishTests {
    /// The gateway publishes from libmosquitto's thread, the HAP read loops' threads (through the store's
    /// executor) and the pool at the same time; `publish` is documented as safe from any thread, and a
    /// broker restart must lose no QoS 1 message of any of them.
    @Test("8 threads publishing QoS 1 through 3 broker restarts: no crash, no error, every message arrives")
    func eightThreadsThroughRestarts() async throws {
        let broker = try await MosquittoBroker(options: .init(persistent: true))
        let receiver = try await MQTTTestClient.connect(to: broker.url, subscribe: ["stress/#"]) {
            $0.sessionExpiry = .seconds(120)
        }
        let sender = try await MQTTTestClient.connect(to: broker.url, subscribe: [])
        let publishers = ThreadedPublishers(client: sender.client, threads: 8)
        publishers.start()
        for restart in 1...3 {
            let before = publishers.published
            try await eventually("every thread publishes before restart \(restart)") {
                publishers.published >= before + 8 * 20
            }
            try await broker.restart()
        }
        let afterLast = publishers.published
        try await eventually("the threads publish after the last restart") {
            publishers.published >= afterLast + 8 * 20
        }
        let sent = try await publishers.stop()
        #expect(publishers.errors.isEmpty, "publish threw: \(publishers.errors.prefix(3))")
        #expect(sent.count == 8 && sent.allSatisfy { $0 > 0 })
        let expected = Set(sent.enumerated().flatMap { thread, count in (0..<count).map { "\(thread)/\($0)" } })
        try await eventually("every published message arrived (\(expected.count))", timeout: .seconds(120)) {
            let arrived = Set(await receiver.messages(on: "stress/#").compactMap(\.payloadString))
            return arrived.isSuperset(of: expected)
        }
        await sender.disconnect()
        await receiver.disconnect()
        await broker.stop()
    }
}

/// Threads of their own (not tasks: the callers this stands for are threads the pool does not own) that
/// each publish numbered QoS 1 messages, `stress/<thread>` with payload `<thread>/<n>`, until stopped.
private final class ThreadedPublishers: Sendable {
    private let client: MQTTClient
    private let threads: Int
    private let state: Mutex<(counts: [Int], errors: [String], stopping: Bool, finished: Int)>

    init(client: MQTTClient, threads: Int) {
        self.client = client
        self.threads = threads
        state = Mutex((Array(repeating: 0, count: threads), [], false, 0))
    }

    /// How many messages all threads have published so far.
    var published: Int { state.withLock { $0.counts.reduce(0, +) } }

    /// What `publish` threw, as text.
    var errors: [String] { state.withLock { $0.errors } }

    func start() {
        for index in 0..<threads {
            let thread = Thread { [self] in publish(as: index) }
            thread.start()
        }
    }

    /// Stops every thread and returns, once all have ended, how many messages each published.
    func stop() async throws -> [Int] {
        state.withLock { $0.stopping = true }
        try await eventually("the publishing threads end") { state.withLock { $0.finished == threads } }
        return state.withLock { $0.counts }
    }

    private func publish(as index: Int) {
        var n = 0
        while !state.withLock({ $0.stopping }) {
            let message = MQTTMessage(topic: "stress/\(index)", string: "\(index)/\(n)", qos: .atLeastOnce)
            do {
                try client.publish(message)
                n += 1
                state.withLock { $0.counts[index] = n }
            } catch {
                state.withLock { $0.errors.append("\(error)") }
            }
            // A steady stream rather than a burst, so that every restart finds messages in flight.
            usleep(10_000)
        }
        state.withLock { $0.finished += 1 }
    }
}
