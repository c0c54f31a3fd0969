/// When the store's one watchdog task wakes to fail writes past their time-out (docs/DESIGN.md "Writes"),
/// instead of a timer task per write.
///
/// The task keeps running while writes are sent, waking at the earliest deadline of a write in flight,
/// and lingers until the deadline of the last write sent, so that a steady stream of writes does not
/// start a task per write. A write whose deadline comes before the running task's wake (the time-out was
/// shortened) gets a new task, and the old one ends. The watchdog only decides; the store runs the task
/// (`HomeStore+Sending.swift`), so every rule here is tested with instants of its own choosing.
struct WriteWatchdog {
    /// The running task, cancelled when another takes over or the watchdog stops.
    private var task: Task<Void, Never>?
    /// Numbers the tasks; only the current one may go on.
    private(set) var generation = 0
    private var wake: ContinuousClock.Instant?
    private var lastDeadline: ContinuousClock.Instant?

    /// A write was sent that must be answered by `deadline`. Returns the number of a new task to start
    /// (hand it to `started(_:)`), or nil when the running task wakes in time.
    mutating func watch(until deadline: ContinuousClock.Instant) -> Int? {
        lastDeadline = deadline
        if task != nil, let wake, wake <= deadline { return nil }
        stop()
        generation += 1
        wake = deadline
        return generation
    }

    /// Keeps the task just started for the number `watch(until:)` returned.
    mutating func started(_ task: Task<Void, Never>) {
        self.task = task
    }

    /// Whether the task numbered `generation` is the one that may go on.
    func isCurrent(_ generation: Int) -> Bool { self.generation == generation }

    /// When the current task wakes next after `now`: the earliest of `inFlight` (the deadlines of the
    /// writes in flight); with none, the last write's deadline while it is ahead and `lingering` (the
    /// store runs); nil when the task ends, which it is then taken to have done.
    mutating func nextWake(after now: ContinuousClock.Instant, inFlight: [ContinuousClock.Instant], lingering: Bool)
        -> ContinuousClock.Instant?
    {
        if let earliest = inFlight.min() {
            wake = earliest
        } else if lingering, let last = lastDeadline, last > now {
            wake = last
        } else {
            ended()
        }
        return wake
    }

    /// The current task has ended by itself.
    mutating func ended() {
        task = nil
        wake = nil
    }

    /// Cancels the running task (no write is in flight any more, or another task takes over).
    mutating func stop() {
        task?.cancel()
        ended()
    }
}
