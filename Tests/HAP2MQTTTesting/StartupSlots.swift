import Foundation

/// Lets only a few heavy test processes (HAP-python accessories, Home Assistant) start at the same time.
///
/// Swift Testing starts every test at once. On a small machine that is busy anyway (a second test run,
/// other builds), dozens of Python processes then share its cores while each test counts its own start-up
/// deadline from the same moment, and all of them miss it together. A test first waits for a slot, then
/// starts its process and counts its deadline: the deadline is about that process's own start-up again,
/// and the machine does the same work in the same total time.
actor StartupSlots {
    /// One slot per core, at least two.
    static let shared = StartupSlots(count: max(2, ProcessInfo.processInfo.activeProcessorCount))

    private let count: Int
    private var inUse = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) {
        self.count = count
    }

    /// Waits until a slot is free and takes it.
    func acquire() async {
        guard inUse >= count else {
            inUse += 1
            return
        }
        // The slot is handed over by `release`, which does not give it up in between.
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Gives the slot to the longest waiter, or frees it.
    func release() {
        if waiting.isEmpty {
            inUse -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}

/// Runs `body`, the start of a heavy process up to its "ready", while holding one of `StartupSlots`.
/// - Throws: what `body` throws.
public func withStartupSlot<T, E: Error>(_ body: () async throws(E) -> T) async throws(E) -> T {
    await StartupSlots.shared.acquire()
    let result: Result<T, E>
    do {
        result = .success(try await body())
    } catch {
        result = .failure(error)
    }
    await StartupSlots.shared.release()
    return try result.get()
}
