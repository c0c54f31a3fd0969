import HomeModel
import Synchronization

/// Who gets one queued write's outcome, exactly once.
///
/// A waiter starts by holding the outcome. Its owner then either takes an outcome that is already there
/// (`handOver(to:)` returns it: the write finished while the caller was still in the store) or leaves
/// the closure that gets it later. A waiter released without an outcome gives its `dropped` outcome, so
/// a caller is answered even if a future mistake loses the write. A Mutex, because the outcome may come
/// from the store's drain while `deinit` may run wherever the last reference goes.
final class WriteWaiter<Outcome: Sendable>: Sendable {
    private enum State {
        case holding
        case held(Outcome)
        case waiting(@Sendable (Outcome) -> Void)
        case done
    }

    private let state = Mutex(State.holding)
    private let dropped: @Sendable () -> Outcome
    /// Who gets the settlement of each of its writes that fails `.unconfirmed` (`UnsettledWrites`); nil
    /// when the caller does not want one.
    let settled: WriteSettlementHandler?

    init(dropped: @autoclosure @escaping @Sendable () -> Outcome, settled: WriteSettlementHandler? = nil) {
        self.dropped = dropped
        self.settled = settled
    }

    /// A waiter that gives its outcome to `deliver` when it comes.
    convenience init(
        dropped: @autoclosure @escaping @Sendable () -> Outcome, settled: WriteSettlementHandler? = nil,
        deliver: @escaping @Sendable (Outcome) -> Void
    ) {
        self.init(dropped: dropped(), settled: settled)
        _ = handOver(to: deliver)
    }

    /// Records the outcome; later ones are ignored.
    func resume(returning outcome: Outcome) {
        let deliver = state.withLock { state -> (@Sendable (Outcome) -> Void)? in
            switch state {
            case .holding:
                state = .held(outcome)
                return nil
            case .waiting(let deliver):
                state = .done
                return deliver
            case .held, .done:
                return nil
            }
        }
        deliver?(outcome)
    }

    /// Returns the outcome when it is already there; otherwise `deliver` gets it when it comes. Called
    /// once.
    func handOver(to deliver: @escaping @Sendable (Outcome) -> Void) -> Outcome? {
        state.withLock { state -> Outcome? in
            switch state {
            case .held(let outcome):
                state = .done
                return outcome
            case .holding:
                state = .waiting(deliver)
                return nil
            case .waiting, .done:
                return nil
            }
        }
    }

    deinit {
        let deliver = state.withLock { state -> (@Sendable (Outcome) -> Void)? in
            guard case .waiting(let deliver) = state else { return nil }
            state = .done
            return deliver
        }
        deliver?(dropped())
    }
}

/// Gathers the outcomes of a multi-write's parts (one per accessory queue) into one waiter.
final class BatchOutcome: Sendable {
    typealias Outcome = [CharacteristicAddress: Result<CharacteristicValue, HomeStoreError>]

    private struct State {
        var results: Outcome
        var remaining: Int
    }

    private let state: Mutex<State>
    let waiter: WriteWaiter<Outcome>

    /// - Parameters:
    ///   - results: the outcomes known already (writes that failed the checks).
    ///   - parts: how many parts will add theirs.
    init(_ results: Outcome, parts: Int, dropped: @autoclosure @escaping @Sendable () -> Outcome) {
        state = Mutex(State(results: results, remaining: parts))
        waiter = WriteWaiter(dropped: dropped())
        if parts == 0 { waiter.resume(returning: results) }
    }

    /// Adds one part's outcomes; the last part completes the waiter.
    func add(_ part: Outcome) {
        let complete = state.withLock { state -> Outcome? in
            state.results.merge(part) { _, new in new }
            state.remaining -= 1
            return state.remaining == 0 ? state.results : nil
        }
        if let complete { waiter.resume(returning: complete) }
    }
}
