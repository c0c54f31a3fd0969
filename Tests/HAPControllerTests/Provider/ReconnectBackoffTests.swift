import HAP2MQTTTesting
import SystemSupport
import Testing

@testable import HAPController

@Suite("Reconnect back-off")
struct ReconnectBackoffTests {
    @Test("0.5 s doubling to 60 s, each delay within ±20 % of its step and never outside 0.5...60 s")
    func schedule() {
        let backoff = ReconnectBackoff()
        let bases = (1...10).map { backoff.baseDelay(afterFailures: $0).inSeconds }
        #expect(bases == [0.5, 1, 2, 4, 8, 16, 32, 60, 60, 60])

        for seed in 1...50 as ClosedRange<UInt64> {
            var generator = SeededGenerator(seed: seed)
            var jittered = ReconnectBackoff()
            for failure in 1...12 {
                let delay = jittered.nextDelay(using: &generator).inSeconds
                let base = backoff.baseDelay(afterFailures: failure).inSeconds
                #expect(
                    delay >= max(base * 0.8, 0.5) && delay <= min(base * 1.2, 60),
                    "seed \(seed), failure \(failure): \(delay) s")
            }
            #expect(jittered.failures == 12)
        }
    }

    @Test("the jitter spreads the delays; reset starts again at the first step")
    func jitterAndReset() {
        var generator = SeededGenerator(seed: 7)
        var delays = Set<Double>()
        for _ in 0..<20 {
            var backoff = ReconnectBackoff()
            _ = backoff.nextDelay(using: &generator)
            _ = backoff.nextDelay(using: &generator)
            delays.insert(backoff.nextDelay(using: &generator).inSeconds)
        }
        #expect(delays.count > 10, "the third delay differs between controllers: \(delays.sorted())")

        var backoff = ReconnectBackoff(jitter: 0)
        for _ in 0..<5 { _ = backoff.nextDelay() }
        #expect(backoff.nextDelay() == .seconds(16))
        backoff.reset()
        #expect(backoff.failures == 0)
        #expect(backoff.nextDelay() == .milliseconds(500))
    }
}
