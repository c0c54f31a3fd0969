import Synchronization

/// Why `hap2mqtt run` stops.
enum StopReason: Sendable, Hashable {
    /// SIGINT or SIGTERM, with its number.
    case signal(Int32)
    /// Code asked (a test; later a bridge request or the web page), saying who.
    case requested(by: String)
    /// The task running the services was cancelled.
    case cancelled
    /// Another gateway took the base topic over while this one was cut off from the broker, with the
    /// line that says so (`Gateway.onClaimLost(_:)`).
    case claimLost(String)

    /// The start of the log line when the stop comes while the services run: `received signal 15`.
    var whileRunning: String {
        switch self {
        case .signal(let number): return "received signal \(number)"
        case .requested(let by): return "\(by) asked to stop"
        case .cancelled: return "cancelled"
        case .claimLost: return "another gateway took the base topic over"
        }
    }

    /// The start of the log line when the stop comes while a service is still starting: `received a
    /// signal` (… before the broker could be reached).
    var whileStarting: String {
        switch self {
        case .signal: return "received a signal"
        case .requested, .cancelled, .claimLost: return whileRunning
        }
    }
}

/// A request to stop, made once from anywhere (a signal handler, a test), awaited by `ServiceGroup`.
/// The first reason given is the one kept.
final class StopRequest: Sendable {
    private struct State {
        var reason: StopReason?
        var waiters: [Int: CheckedContinuation<StopReason?, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    init() {}

    /// The reason, once a stop was requested.
    var reason: StopReason? { state.withLock { $0.reason } }

    /// Asks to stop; wakes every waiter. Later requests change nothing.
    func request(_ reason: StopReason) {
        let waiters = state.withLock { s -> [CheckedContinuation<StopReason?, Never>] in
            guard s.reason == nil else { return [] }
            s.reason = reason
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: reason) }
    }

    /// Returns the reason once a stop is requested (at once if it was), or nil when the waiting task is
    /// cancelled first.
    func wait() async -> StopReason? {
        let id = state.withLock { s in
            defer { s.nextWaiter += 1 }
            return s.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<StopReason?, Never>) in
                let now: StopReason?? = state.withLock { s in
                    if let reason = s.reason { return .some(reason) }
                    if Task.isCancelled { return .some(nil) }
                    s.waiters[id] = continuation
                    return .none
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: nil)
        }
    }
}
