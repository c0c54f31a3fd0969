/// Reads and writes that wait for a reconnect under way (`HAPAccessoryProvider.session(after:)`), by
/// token, so that a cancelled one can leave alone.
struct SessionWaiters {
    private var waiting: [UInt64: CheckedContinuation<HAPClient?, Never>] = [:]
    private var lastToken: UInt64 = 0

    /// A token for the next waiter.
    mutating func nextToken() -> UInt64 {
        lastToken += 1
        return lastToken
    }

    mutating func add(_ waiter: CheckedContinuation<HAPClient?, Never>, token: UInt64) { waiting[token] = waiter }

    /// The waiter of `token`, removed; nil when it was resumed already.
    mutating func remove(_ token: UInt64) -> CheckedContinuation<HAPClient?, Never>? {
        waiting.removeValue(forKey: token)
    }

    /// Every waiter, removed.
    mutating func removeAll() -> [CheckedContinuation<HAPClient?, Never>] {
        defer { waiting = [:] }
        return Array(waiting.values)
    }
}
