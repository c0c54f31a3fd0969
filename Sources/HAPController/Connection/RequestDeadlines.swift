import Synchronization

/// The one task of the process that wakes for the request time-outs of every `HAPConnection`: each
/// connection says when it wants to look at its request in flight (`watch`), and the task sleeps until the
/// earliest of those times, calls the connections that are due (`HAPConnection.watchdogWoke()`), and
/// sleeps again until the next.
///
/// A task with a timer of its own per connection would cost every new connection a task, a Dispatch timer
/// (a wake of Dispatch's manager thread) and the cancellation at its close: 4–6 % of a pair-verify's CPU
/// (hap2mqtt-bench hap, Benchmarks/README.md). Here a connection only adds an entry, and a new task starts only when
/// a connection wants to be woken before the sleeping task would wake.
final class RequestDeadlines: Sendable {
    /// The process's one.
    static let shared = RequestDeadlines()

    private struct Entry {
        weak var connection: HAPConnection?
        var wake: ContinuousClock.Instant
    }

    private struct Sleeper {
        let generation: UInt64
        var wake: ContinuousClock.Instant
        let task: Task<Void, Never>
    }

    private struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        /// The task sleeping until the earliest entry; a newer generation replaces it.
        var sleeper: Sleeper?
        var generation: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Calls `connection.watchdogWoke()` at `wake` (or a little later), instead of any time asked before.
    func watch(_ connection: HAPConnection, until wake: ContinuousClock.Instant) {
        state.withLock { s in
            s.entries[ObjectIdentifier(connection)] = Entry(connection: connection, wake: wake)
            if let sleeper = s.sleeper, sleeper.wake <= wake { return }
            s.sleeper?.task.cancel()
            s.generation += 1
            let generation = s.generation
            let task = Task { [self] in await run(generation, from: wake) }
            s.sleeper = Sleeper(generation: generation, wake: wake, task: task)
        }
    }

    /// No call for `connection` any more (it closed).
    func forget(_ connection: HAPConnection) {
        state.withLock { _ = $0.entries.removeValue(forKey: ObjectIdentifier(connection)) }
    }

    /// The sleeping task's body, until no entry is left or a newer task replaced it.
    private func run(_ generation: UInt64, from first: ContinuousClock.Instant) async {
        var wake = first
        while true {
            try? await Task.sleep(until: wake, clock: .continuous)
            if Task.isCancelled { return }
            let now = ContinuousClock.now
            let due: [HAPConnection] = state.withLock { s in
                var due: [HAPConnection] = []
                for (key, entry) in s.entries where entry.wake <= now {
                    s.entries.removeValue(forKey: key)
                    if let connection = entry.connection { due.append(connection) }
                }
                return due
            }
            // Each one asks again (`watch`) when its request still waits.
            for connection in due { await connection.watchdogWoke() }
            let next: ContinuousClock.Instant? = state.withLock { s in
                guard s.sleeper?.generation == generation else { return nil }
                guard let earliest = s.entries.values.map(\.wake).min() else {
                    s.sleeper = nil
                    return nil
                }
                s.sleeper?.wake = earliest
                return earliest
            }
            guard let next else { return }
            wake = next
        }
    }
}
