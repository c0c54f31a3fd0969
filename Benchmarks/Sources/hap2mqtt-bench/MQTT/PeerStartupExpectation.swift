/// "All retained state published" by the peer bridge: a message on `<base>/<alias>/<aid>/<iid>` for
/// each of `characteristics` readable characteristics (the peer publishes nothing else at start).
struct PeerStartupExpectation: Expectation {
    let prefix: String
    let characteristics: Int
    private var seen = Set<String>()
    /// The first arrival of the last of them.
    private(set) var last: UInt64 = 0

    init(base: String, characteristics: Int) {
        prefix = base + "/"
        self.characteristics = characteristics
    }

    mutating func observe(topic: String, payload: UnsafeRawBufferPointer, at time: UInt64) -> Bool {
        guard topic.hasPrefix(prefix),
            topic.utf8.dropFirst(prefix.utf8.count).count(where: { $0 == UInt8(ascii: "/") }) == 2
        else { return seen.count >= characteristics }
        if seen.insert(topic).inserted { last = time }
        return seen.count >= characteristics
    }

    var progress: String { "\(seen.count) of \(characteristics) state topics" }
}
