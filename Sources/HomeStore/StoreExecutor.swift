import Synchronization
import SystemSupport

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// The serial executor of the home store, and of every actor that shares it (the Gateway): a job that
/// finds it idle runs at once on the thread that enqueued it, and jobs that arrive while one runs wait and
/// run after it, in order, on the same thread.
///
/// Swift's default actors run on a pool thread: a job enqueued from a thread outside the pool
/// (libmosquitto's loop thread with a `/set`, a provider reporting a change) wakes a pool thread and
/// waits for it, a median of 35 µs under load and more on an idle machine, on every command and every
/// event (hap2mqtt-bench latency and command).
/// Here the enqueuing thread does the store's work itself, as an event loop would.
///
/// A thread that runs jobs here runs at most `inlineBudget` of them in one go: the jobs its own job
/// started (a delivery after the job, a write's drain) run at once, but a thread that feeds a busy store
/// (libmosquitto's loop during an event flood, which must go back to reading and writing its socket) is
/// not kept draining what others enqueue; what is left then runs on a pool thread.
///
/// Serial as any actor's executor: one job at a time, in the order enqueued (SE-0392).
public final class StoreExecutor: SerialExecutor {
    private struct State: Sendable {
        /// Jobs waiting, from `head` on.
        var queue: [UnownedJob] = []
        var head = 0
        /// A thread is running jobs (or a pool task is about to).
        var running = false
        /// The thread running jobs, for `checkIsolated()`; nil between jobs.
        var owner: pthread_t?

        mutating func popFirst() -> UnownedJob? {
            guard head < queue.count else {
                queue.removeAll(keepingCapacity: queue.capacity <= 64)
                head = 0
                return nil
            }
            defer { head += 1 }
            return queue[head]
        }
    }

    private let state = Mutex(State())

    /// How many jobs one thread runs in a row before it leaves the rest to a pool thread.
    public let inlineBudget: Int

    /// An idle executor. `inlineBudget` (at least 1) bounds the jobs one enqueuing thread runs in a row.
    public init(inlineBudget: Int = 16) {
        self.inlineBudget = max(1, inlineBudget)
    }

    /// Runs `job` now on this thread when no job runs, else queues it behind the running one.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let current = pthread_self()
        let runsNow = state.withLock { s -> Bool in
            if s.running {
                s.queue.append(job)
                return false
            }
            s.running = true
            s.owner = current
            return true
        }
        guard runsNow else { return }
        // The runtime holds no reference to an executor while its jobs run, and a job may release the
        // last owner of the store (and so of this executor) before it returns.
        let retained = Unmanaged.passRetained(self)
        defer { retained.release() }
        run(first: job, budget: inlineBudget)
    }

    /// Whether the calling thread is running a job of this executor (SE-0424), so that `assumeIsolated`
    /// holds on it however the job was entered.
    public func checkIsolated() {
        let current = pthread_self()
        let isOwner = state.withLock { s in s.owner.map { pthread_equal($0, current) != 0 } ?? false }
        precondition(isOwner, "not on the home store's executor")
    }

    /// Runs `first`, then waiting jobs until none waits or `budget` jobs ran; with jobs still waiting the
    /// rest is left to a pool thread. The caller has set `running`, and `owner` to this thread.
    private func run(first: UnownedJob, budget: Int) {
        // A job here holds up the whole home: the thread is marked so that a blocking call stops a debug
        // build (`NonBlockingThread`).
        NonBlockingThread.run { runJobs(first: first, budget: budget) }
    }

    /// The body of `run(first:budget:)`.
    private func runJobs(first: UnownedJob, budget: Int) {
        var job = first
        var ran = 0
        let current = pthread_self()
        while true {
            job.runSynchronously(on: asUnownedSerialExecutor())
            ran += 1
            let keepsRunning = ran < budget
            let next = state.withLock { s -> UnownedJob? in
                guard let next = s.popFirst() else {
                    s.running = false
                    s.owner = nil
                    return nil
                }
                // With the budget spent, `running` stays set: the pool task owns the queue from here.
                s.owner = keepsRunning ? current : nil
                return next
            }
            guard let next else { return }
            guard keepsRunning else {
                Task.detached { [self] in
                    let pool = pthread_self()
                    state.withLock { $0.owner = pool }
                    run(first: next, budget: .max)
                }
                return
            }
            job = next
        }
    }
}
