import Synchronization
import SystemSupport
import Testing

@Suite("withDeadline")
struct DeadlineTests {
    @Test("an operation that ends in time gives its value")
    func inTime() async {
        #expect(await withDeadline(.seconds(30)) { 42 } == 42)
    }

    @Test("an operation still running when the limit passes gives nil, and is cancelled")
    func late() async {
        let cancelled = Mutex(false)
        let outcome: Int? = await withDeadline(.milliseconds(50)) {
            try? await Task.sleep(for: .seconds(3600))
            cancelled.withLock { $0 = Task.isCancelled }
            return 1
        }
        #expect(outcome == nil)
        try? await eventuallyTrue { cancelled.withLock { $0 } }
        #expect(cancelled.withLock { $0 })
    }

    /// Polls `condition` for up to ten seconds.
    private func eventuallyTrue(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
    }
}
