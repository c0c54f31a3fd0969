/// Lets other tests' tasks run now and then during a long synchronous loop (fuzzing, volume).
///
/// Swift Testing runs every test at once on the cooperative pool, which has one thread per core. A test
/// that loops for seconds without a suspension point holds a thread all that time; two of them on two
/// cores stop every other test, whose deadlines (a fixture's start, a reply) run out meanwhile. On a busy
/// machine those seconds become minutes.
///
/// ```swift
/// var share = FairShare()
/// for _ in 0..<3000 {
///     await share.turn()
///     check(randomInput())
/// }
/// ```
public struct FairShare: Sendable {
    /// Rounds between two yields.
    public let rounds: Int
    private var count = 0

    /// Yields every `rounds` rounds.
    public init(rounds: Int = 50) {
        self.rounds = rounds
    }

    /// Counts a round and, every `rounds` of them, yields the thread to the tasks waiting for one.
    public mutating func turn() async {
        count += 1
        if count % rounds == 0 { await Task.yield() }
    }
}
