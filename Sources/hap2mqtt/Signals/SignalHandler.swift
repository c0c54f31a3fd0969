import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns SIGINT and SIGTERM (or other signals) into an async sequence, so `run` can shut down
/// cleanly instead of being killed mid-write.
///
/// While a handler lives, its signals are ignored by the process (`signal(SIG, SIG_IGN)`) and
/// delivered to `signals` through a Dispatch signal source; each arrival is one element, so a second
/// Ctrl-C during a slow shutdown is seen too. `cancel()` (or the handler's end) finishes the sequence
/// and, when no other handler wants the signal, restores its default action.
final class SignalHandler: Sendable {
    /// The signal numbers as they arrive.
    let signals: AsyncStream<Int32>

    private let numbers: [Int32]
    private let continuation: AsyncStream<Int32>.Continuation
    /// The live sources; nil once cancelled.
    private let state: Mutex<[any DispatchSourceSignal]?>

    /// How many handlers want each signal, so the last one out restores the default action.
    private static let users = Mutex<[Int32: Int]>([:])

    /// Starts handling `numbers` (default SIGINT and SIGTERM).
    init(_ numbers: [Int32] = [SIGINT, SIGTERM]) {
        self.numbers = numbers
        (signals, continuation) = AsyncStream.makeStream(of: Int32.self)
        Self.users.withLock { users in
            for number in numbers {
                if users[number, default: 0] == 0 { signal(number, SIG_IGN) }
                users[number, default: 0] += 1
            }
        }
        let queue = DispatchQueue(label: "hap2mqtt.signals")
        let continuation = continuation
        state = Mutex(numbers.map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        })
    }

    /// Stops handling the signals and finishes `signals`. Calling it again does nothing.
    func cancel() {
        let live = state.withLock { sources in
            defer { sources = nil }
            return sources
        }
        guard let sources = live else { return }
        for source in sources { source.cancel() }
        continuation.finish()
        Self.users.withLock { users in
            for number in numbers {
                users[number, default: 1] -= 1
                if users[number] == 0 { signal(number, SIG_DFL) }
            }
        }
    }

    deinit { cancel() }
}
