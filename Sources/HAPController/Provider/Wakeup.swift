import Synchronization

/// A wait that can be cut short: the provider waits out its reconnection back-off with `wait(upTo:)`, and
/// an announcement of its accessory calls `signal()` so that it reconnects at once (docs/DESIGN.md
/// "Availability and recovery": an offline accessory that announces itself skips its back-off).
///
/// A signal while nobody waits is kept for the next wait; `clear()` forgets it. A Mutex, because the
/// signal, the timer and a cancellation race.
final class Wakeup: Sendable {
    private struct State {
        var pending = false
        var waiter: (id: Int, continuation: CheckedContinuation<Bool, Never>)?
        /// A wait that ended (time-out, cancellation) before its continuation was stored.
        var ended: Int?
        var lastID = 0
    }

    private let state = Mutex(State())

    /// Ends the wait under way with `true`, or the next one at once if none is under way.
    func signal() {
        let waiter = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            guard let waiter = s.waiter else {
                s.pending = true
                return nil
            }
            s.waiter = nil
            return waiter.continuation
        }
        waiter?.resume(returning: true)
    }

    /// Forgets a signal that no wait took yet.
    func clear() { state.withLock { $0.pending = false } }

    /// Waits until `signal()` (true), or until `timeout` has passed or the task is cancelled (false).
    func wait(upTo timeout: Duration) async -> Bool {
        let id = state.withLock { s -> Int in
            s.lastID += 1
            return s.lastID
        }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.end(id)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let immediate = state.withLock { s -> Bool? in
                    if s.pending {
                        s.pending = false
                        return true
                    }
                    if s.ended == id || Task.isCancelled { return false }
                    s.waiter = (id, continuation)
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            end(id)
        }
    }

    /// Ends the wait `id` with `false` (time-out or cancellation).
    private func end(_ id: Int) {
        let waiter = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            guard let waiter = s.waiter, waiter.id == id else {
                s.ended = id
                return nil
            }
            s.waiter = nil
            return waiter.continuation
        }
        waiter?.resume(returning: false)
    }
}
