import HomeModel

/// The streams that follow which accessories their options exclude (`Gateway.exclusions()`): the web page
/// hides an excluded accessory's values and reloads its list when the set changes (docs/DESIGN.md "Web
/// page"). Each stream keeps only the newest set, so a slow follower never holds more than one.
struct ExclusionFollowers {
    private var next = 0
    private var continuations: [Int: AsyncStream<Set<AccessoryID>>.Continuation] = [:]

    /// Adds `continuation`; the key removes it again.
    mutating func add(_ continuation: AsyncStream<Set<AccessoryID>>.Continuation) -> Int {
        next += 1
        continuations[next] = continuation
        return next
    }

    mutating func remove(_ key: Int) {
        continuations[key] = nil
    }

    /// Gives every follower the set `excluded`.
    func send(_ excluded: Set<AccessoryID>) {
        for continuation in continuations.values { continuation.yield(excluded) }
    }

    /// Ends every stream (the gateway stopped).
    mutating func finishAll() {
        for continuation in continuations.values { continuation.finish() }
        continuations = [:]
    }
}
