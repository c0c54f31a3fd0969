import Synchronization

/// Waits until `condition` holds, checking every 20 ms, for at most `timeout`.
/// - Throws: `TestSupportError.timedOut("<what> did not happen within …")`, or what `condition` throws.
public func eventually(
    _ what: String, timeout: Duration = .seconds(30), isolation: isolated (any Actor)? = #isolation,
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            throw TestSupportError.timedOut("\(what) did not happen within \(timeout)")
        }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// A thread-safe list that callbacks and hooks append to and tests read.
public final class Recorder<Element: Sendable>: Sendable {
    private let storage = Mutex<[Element]>([])

    /// An empty list.
    public init() {}

    /// Adds `element` at the end.
    public func append(_ element: Element) {
        storage.withLock { $0.append(element) }
    }

    /// Everything appended so far, in order.
    public var elements: [Element] { storage.withLock { $0 } }
}
