import Synchronization
import SystemSupport
import Testing

/// `OpenedOnce`, which keeps the function tables of the C libraries opened on first use.
@Suite("Opened once: a value made on first use")
struct OpenedOnceTests {
    private struct Missing: Error, Equatable {
        let attempt: Int
    }

    /// Counts the openings, from any task.
    private final class Openings: Sendable {
        private let count = Mutex(0)
        /// Counts one opening and returns how many there were.
        func open() -> Int {
            count.withLock {
                $0 += 1
                return $0
            }
        }
        var total: Int { count.withLock { $0 } }
    }

    @Test("the first success is kept and returned without opening again")
    func keptAfterSuccess() throws {
        let once = OpenedOnce<Int>()
        let openings = Openings()
        let open = { () throws(Missing) -> Int in 41 + openings.open() }
        #expect(try once.value(opening: open) == 42)
        #expect(try once.value(opening: open) == 42)
        #expect(try once.value(opening: { () throws(Missing) -> Int in 7 }) == 42)
        #expect(openings.total == 1)
    }

    @Test("a failure is thrown as it is and not kept: the next use opens again")
    func failureNotKept() throws {
        let once = OpenedOnce<String>()
        #expect(throws: Missing(attempt: 1)) {
            try once.value(opening: { () throws(Missing) -> String in throw Missing(attempt: 1) })
        }
        #expect(throws: Missing(attempt: 2)) {
            try once.value(opening: { () throws(Missing) -> String in throw Missing(attempt: 2) })
        }
        #expect(try once.value(opening: { () throws(Missing) -> String in "installed" }) == "installed")
        #expect(try once.value(opening: { () throws(Missing) -> String in throw Missing(attempt: 3) }) == "installed")
    }

    @Test("concurrent first uses open it once and all get the same value")
    func concurrentFirstUse() async {
        let once = OpenedOnce<Int>()
        let openings = Openings()
        let values = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<32 {
                group.addTask { once.value(opening: openings.open) }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(values == Array(repeating: 1, count: 32))
        #expect(openings.total == 1)
    }
}
