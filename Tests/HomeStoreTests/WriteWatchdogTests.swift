import Testing

@testable import HomeStore

/// When the store's one watchdog task runs, decided by `WriteWatchdog` alone at instants the test chooses.
@Suite("Home store: the write watchdog's schedule")
struct WriteWatchdogTests {
    static let start = ContinuousClock.now
    static func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(seconds * 1000) }

    @Test("one task serves writes whose deadlines come after its wake; an earlier deadline starts another")
    func oneTask() {
        var watchdog = WriteWatchdog()
        let first = watchdog.watch(until: Self.at(10))
        watchdog.started(Task {})
        let later = watchdog.watch(until: Self.at(11))
        let sooner = watchdog.watch(until: Self.at(5))
        #expect(first == 1)
        #expect(later == nil, "the running task wakes at 10, before 11")
        #expect(sooner == 2, "a shortened time-out needs a task that wakes at 5")
        #expect(!watchdog.isCurrent(1) && watchdog.isCurrent(2))
    }

    @Test("it wakes at the earliest write in flight, lingers until the last deadline, then ends")
    func wakes() {
        var watchdog = WriteWatchdog()
        _ = watchdog.watch(until: Self.at(10))
        watchdog.started(Task {})
        _ = watchdog.watch(until: Self.at(12))
        let wakes = [
            watchdog.nextWake(after: Self.at(1), inFlight: [Self.at(12), Self.at(10)], lingering: true),
            watchdog.nextWake(after: Self.at(10), inFlight: [], lingering: true),
            watchdog.nextWake(after: Self.at(12), inFlight: [], lingering: true),
        ]
        #expect(wakes == [Self.at(10), Self.at(12), nil])
        #expect(watchdog.watch(until: Self.at(20)) == 2, "ended: the next write starts a task again")
    }

    @Test("a stopping store does not linger, and stop ends the task")
    func stopping() {
        var watchdog = WriteWatchdog()
        _ = watchdog.watch(until: Self.at(10))
        watchdog.started(Task {})
        let wake = watchdog.nextWake(after: Self.at(1), inFlight: [], lingering: false)
        #expect(wake == nil)
        _ = watchdog.watch(until: Self.at(10))
        watchdog.started(Task {})
        watchdog.stop()
        #expect(watchdog.watch(until: Self.at(11)) != nil, "stopped: a new write starts a new task")
    }
}
