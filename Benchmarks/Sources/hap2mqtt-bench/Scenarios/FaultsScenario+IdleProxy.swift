import Foundation
import HAP2MQTTTesting
import MQTT

/// An accessory behind a connection that is closed after 20 s without traffic, as
/// several real accessories do. No `/set` may fail and no accessory may go `offline` (README
/// "Reliability": the learned keep-alive, writes that wait for the reconnect).
extension FaultsScenario {
    /// What `/set`s behind the idle-closing proxy came to.
    struct IdleProxyOutcome {
        /// `/set`s sent.
        var sent: Int
        /// Those answered with anything but `ok`, or not at all within 30 s.
        var failed: Int
        /// `offline` messages on the accessories' availability topics.
        var flaps: Int
        /// Connections the proxy closed for being idle.
        var idleCloses: Int
        /// The first failure, for the notes.
        var firstFailure: String?
    }

    /// The proxy's idle limit.
    static let proxyIdleLimit = Duration.seconds(20)

    /// A HAP-python bridge reached through `TCPProxy` (closing connections idle for 20 s), the gateway
    /// paired through it; for `duration`, a `/set` of the Light's brightness every 15–25 s, each awaited on
    /// its result topic.
    func idleClosingProxy(duration: Duration, python: String, context: BenchmarkContext) async throws
        -> IdleProxyOutcome
    {
        let broker = try await MosquittoBroker()
        let base = context.uniqueBase(name)
        let bridge = try await HAPPythonAccessory.start(python: python)
        let proxy = try TCPProxy(to: Int(bridge.port), closingIdleAfter: Self.proxyIdleLimit)
        let gateway = try GatewayProcess(brokerURL: broker.url, baseTopic: base, logLevel: "info")
        defer {
            proxy.stop()
            try? FileManager.default.removeItem(at: gateway.directory)
        }
        do {
            try await pair(gateway, port: UInt16(proxy.port), code: bridge.setupCode)
            let observer = try await MQTTTestClient.connect(
                to: broker, subscribe: ["\(base)/bridge/state", "\(base)/+/availability"])
            try await start(gateway, observer: observer, base: base)
            await observer.clear()
            let result = "\(base)/light/lightbulb/brightness/set/result"
            try await observer.subscribe([result])
            var outcome = IdleProxyOutcome(sent: 0, failed: 0, flaps: 0, idleCloses: 0)
            let end = ContinuousClock.now + duration
            while ContinuousClock.now < end {
                try await Task.sleep(for: .milliseconds(Int.random(in: 15_000...25_000)))
                outcome.sent += 1
                let value = outcome.sent % 100 + 1
                let answered = await observer.messages(on: result).count
                try await observer.publish("\(base)/light/lightbulb/brightness/set", "\(value)")
                let deadline = ContinuousClock.now + .seconds(30)
                while await observer.messages(on: result).count == answered, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                let answers = await observer.messages(on: result)
                let answer = answers.count > answered ? answers[answered].payloadString ?? "" : "no answer in 30 s"
                if answer != #"{"status":"ok","value":\#(value)}"# {
                    outcome.failed += 1
                    outcome.firstFailure = outcome.firstFailure ?? answer
                }
                let offline = await Self.offlineCount(observer, base: base)
                context.progress(
                    "idle-closing proxy: /set \(outcome.sent) \(answer); \(proxy.idleCloses) idle closes, \(offline) offline"
                )
            }
            outcome.flaps = await Self.offlineCount(observer, base: base)
            outcome.idleCloses = proxy.idleCloses
            await observer.disconnect()
            await gateway.stop()
            await bridge.stop()
            await broker.stop()
            return outcome
        } catch {
            await gateway.stop()
            await bridge.stop()
            await broker.stop()
            throw error
        }
    }

    /// The `offline` messages the observer received on `<base>/+/availability` since the gateway was
    /// online.
    private static func offlineCount(_ observer: MQTTTestClient, base: String) async -> Int {
        await observer.messages(on: "\(base)/+/availability").filter { $0.payloadString == "offline" }.count
    }
}
