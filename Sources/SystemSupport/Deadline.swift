import Synchronization

/// Runs `operation` in its own task and returns its result, or nil when `limit` passes first. On time-out
/// the task is cancelled and abandoned: the caller goes on even if the operation ignores cancellation
/// (a hanging accessory must not block later writes, docs/DESIGN.md "Writes"; a broker that never acknowledges
/// must not keep the gateway from stopping).
public func withDeadline<T: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async -> T) async -> T? {
    let gate = DeadlineGate<T>()
    return await withCheckedContinuation { continuation in
        gate.arm(continuation)
        let work = Task { gate.finish(.value(await operation())) }
        let timer = Task {
            try? await Task.sleep(for: limit)
            gate.finish(.timedOut)
        }
        gate.attach(work: work, timer: timer)
    }
}

/// Resumes the waiter of `withDeadline` exactly once, with whichever of the operation and the timer ends
/// first, and cancels the other. A Mutex, because the two tasks race.
private final class DeadlineGate<T: Sendable>: Sendable {
    enum Outcome {
        case value(T)
        case timedOut
    }

    private struct State {
        var continuation: CheckedContinuation<T?, Never>?
        var done = false
        var work: Task<Void, Never>?
        var timer: Task<Void, Never>?
    }

    private let state = Mutex(State())

    func arm(_ continuation: CheckedContinuation<T?, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    func attach(work: Task<Void, Never>, timer: Task<Void, Never>) {
        let finished = state.withLock { s -> Bool in
            if !s.done {
                s.work = work
                s.timer = timer
            }
            return s.done
        }
        if finished {
            timer.cancel()
            work.cancel()
        }
    }

    func finish(_ outcome: Outcome) {
        let taken = state.withLock { s -> (CheckedContinuation<T?, Never>, Task<Void, Never>?)? in
            guard !s.done, let continuation = s.continuation else { return nil }
            s.done = true
            s.continuation = nil
            if case .timedOut = outcome { return (continuation, s.work) }
            return (continuation, s.timer)
        }
        guard let (continuation, other) = taken else { return }
        other?.cancel()
        switch outcome {
        case .value(let v): continuation.resume(returning: v)
        case .timedOut: continuation.resume(returning: nil)
        }
    }
}
