/// Which bridged accessories of the live session answered `-70402` (the bridge cannot reach them), and
/// are unreachable alone until a read or event of theirs succeeds (docs/DESIGN.md "Availability and
/// recovery").
struct BridgedReachability: Sendable {
    /// Why such an accessory is unreachable.
    static let reason = "the bridge cannot reach it (HAP status -70402)"

    private var unreachable: Set<Int> = []

    /// The unreachable aids, in order.
    var aids: [Int] { unreachable.sorted() }

    func isUnreachable(_ aid: Int) -> Bool { unreachable.contains(aid) }

    mutating func markUnreachable(_ aids: some Sequence<Int>) { unreachable.formUnion(aids) }

    mutating func markReachable(_ aids: some Sequence<Int>) { unreachable.subtract(aids) }

    /// Keeps only those of `aids` (a re-sync found the others answering).
    mutating func keep(only aids: Set<Int>) { unreachable.formIntersection(aids) }

    /// The session ended: nothing is known about single accessories any more.
    mutating func forgetAll() { unreachable = [] }
}
