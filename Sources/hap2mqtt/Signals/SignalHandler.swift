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
/// The signals are delivered to `signals` through a Dispatch signal source; each arrival is one
/// element, so a second Ctrl-C during a slow shutdown is seen too. `cancel()` (or the handler's end)
/// finishes the sequence.
///
/// The first handler for a signal sets the process to ignore it (`signal(SIG, SIG_IGN)`), so it no
/// longer ends the process, and it stays so after `cancel()`: libdispatch on Linux installs its own
/// handler for the signal once and never again, so putting the default action back would leave later
/// handlers deaf. The program is expected to exit after the shutdown that a signal starts.
final class SignalHandler: Sendable {
    /// The signal numbers as they arrive.
    let signals: AsyncStream<Int32>

    private let continuation: AsyncStream<Int32>.Continuation
    /// The live sources; nil once cancelled.
    private let state: Mutex<[any DispatchSourceSignal]?>

    /// The signals the process already ignores because of an earlier handler.
    private static let ignored = Mutex<Set<Int32>>([])

    /// Starts handling `numbers` (default SIGINT and SIGTERM), returning once every source is
    /// installed: libdispatch registers sources asynchronously, and on Linux a signal that came
    /// before would meet only `SIG_IGN` and be lost.
    init(_ numbers: [Int32] = [SIGINT, SIGTERM]) async {
        (signals, continuation) = AsyncStream.makeStream(of: Int32.self)
        Self.ignored.withLock { ignored in
            for number in numbers where ignored.insert(number).inserted { signal(number, SIG_IGN) }
        }
        let queue = DispatchQueue(label: "hap2mqtt.signals")
        let continuation = continuation
        let registered = DispatchGroup()
        state = Mutex(
            numbers.map { number in
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { continuation.yield(number) }
                registered.enter()
                source.setRegistrationHandler { registered.leave() }
                source.resume()
                return source
            })
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            registered.notify(queue: queue) { done.resume() }
        }
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
    }

    deinit { cancel() }
}
