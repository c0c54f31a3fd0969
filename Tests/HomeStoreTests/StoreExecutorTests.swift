import Foundation
import HAP2MQTTTesting
import Synchronization
import Testing

@testable import HomeStore

#if canImport(Glibc)
    import Glibc
#endif

/// The thread running the caller. Not inlined: glibc declares `pthread_self` constant, and the compiler
/// would otherwise reuse one answer across an `await` that moved the task to another thread.
@inline(never)
private func currentThread() -> UInt { UInt(pthread_self()) }

/// An actor on a `StoreExecutor` of its own, recording where and in which order its jobs run.
private actor Probe {
    let executor: StoreExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private let inside = Atomic(false)
    /// Jobs recorded so far, readable from any thread.
    let recorded = Atomic(0)
    private(set) var overlaps = 0
    private(set) var order: [Int] = []
    private(set) var threads: [Int: UInt] = [:]

    init(budget: Int = 16) {
        executor = StoreExecutor(inlineBudget: budget)
    }

    /// Records job `number`, and whether another job of this executor ran at the same time.
    func record(_ number: Int) {
        if inside.exchange(true, ordering: .acquiring) { overlaps += 1 }
        order.append(number)
        threads[number] = currentThread()
        recorded.add(1, ordering: .releasing)
        // Long enough for a job enqueued meanwhile on another thread to overlap, if it could.
        for _ in 0..<200 { _ = currentThread() }
        inside.store(false, ordering: .releasing)
    }

    /// Records job 0 here, and starts `count` more jobs of this actor, numbered 1…count, which wait
    /// behind it.
    func recordAndFollow(_ count: Int) {
        record(0)
        for number in 1...count { Task { self.record(number) } }
    }
}

/// Runs `body` on a thread of its own (as libmosquitto's loop thread or a provider's thread calls in) and
/// returns the thread.
private func onForeignThread(_ body: @escaping @Sendable () -> Void) async -> UInt {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            let thread = currentThread()
            body()
            continuation.resume(returning: thread)
        }
    }
}

@Suite("Home store: its executor")
struct StoreExecutorTests {
    @Test("a job that finds the executor idle runs at once on the thread that enqueued it")
    func idleRunsOnTheEnqueuingThread() async throws {
        let probe = Probe()
        let ranBeforeReturn = Atomic(false)
        let thread = await onForeignThread {
            Task.immediate { await probe.record(1) }
            // The job ran before Task.immediate returned: nothing waited for a pool thread.
            ranBeforeReturn.store(probe.recorded.load(ordering: .acquiring) == 1, ordering: .releasing)
        }
        let ran = ranBeforeReturn.load(ordering: .acquiring)
        #expect(ran)
        #expect(await probe.threads[1] == thread)
    }

    @Test("jobs from many threads run one at a time, each producer's in the order it enqueued them")
    func serialAndOrdered() async throws {
        let probe = Probe()
        let producers = 4
        let perProducer = 200
        await withTaskGroup(of: UInt.self) { group in
            for producer in 0..<producers {
                group.addTask {
                    await onForeignThread {
                        for index in 0..<perProducer {
                            let number = producer * perProducer + index
                            Task.immediate { await probe.record(number) }
                        }
                    }
                }
            }
        }
        try await eventually("every job ran") { await probe.order.count == producers * perProducer }
        #expect(await probe.overlaps == 0)
        let order = await probe.order
        for producer in 0..<producers {
            let own = order.filter { $0 / perProducer == producer }
            #expect(own == Array(producer * perProducer..<(producer + 1) * perProducer))
        }
    }

    @Test("a thread runs at most the budget of jobs in a row, and a pool thread runs the rest")
    func budgetBoundsTheEnqueuingThread() async throws {
        let probe = Probe(budget: 4)
        let thread = await onForeignThread {
            Task.immediate { await probe.recordAndFollow(100) }
        }
        try await eventually("every job ran") { await probe.order.count == 101 }
        #expect(await probe.order == Array(0...100))
        let threads = await probe.threads
        let onForeign = threads.values.filter { $0 == thread }.count
        // Job 0 and the three after it ran on the foreign thread; the other 97 did not keep it.
        #expect(onForeign == 4)
        #expect(await probe.overlaps == 0)
    }
}
