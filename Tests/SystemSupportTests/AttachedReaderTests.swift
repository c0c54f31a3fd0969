import Synchronization
import SystemSupport
import Testing

/// `AttachedReader`, the wake-once rule that `HandOffQueue` and the store's `ProviderEventQueue` share.
@Suite("Attached reader: one wake-up per batch")
struct AttachedReaderTests {
    /// Counts the calls of the wake-ups it makes.
    private final class Wakes: Sendable {
        let count = Mutex(0)
        var wake: @Sendable () -> Void { { self.count.withLock { $0 += 1 } } }
    }

    @Test("nothing is claimed without a reader, or without work")
    func nothingToWake() {
        var reader = AttachedReader()
        #expect(!reader.isIdle)
        #expect(reader.claim(when: true) == nil)
        reader.attach({})
        #expect(reader.isIdle)
        #expect(reader.claim(when: false) == nil)
        #expect(reader.isIdle)
    }

    @Test("an idle reader's wake-up is claimed once, and again after it went idle")
    func claimedOncePerBatch() {
        let wakes = Wakes()
        var reader = AttachedReader()
        reader.attach(wakes.wake)
        let first = reader.claim(when: true)
        #expect(first != nil)
        #expect(!reader.isIdle)
        #expect(reader.claim(when: true) == nil)
        reader.wentIdle()
        #expect(reader.isIdle)
        let second = reader.claim(when: true)
        first?()
        second?()
        #expect(wakes.count.withLock { $0 } == 2)
    }

    @Test("attaching a new reader makes it idle; detaching leaves nothing to claim")
    func attachAndDetach() {
        let old = Wakes()
        let new = Wakes()
        var reader = AttachedReader()
        reader.attach(old.wake)
        _ = reader.claim(when: true)
        reader.attach(new.wake)
        #expect(reader.isIdle)
        reader.claim(when: true)?()
        #expect(new.count.withLock { $0 } == 1)
        #expect(old.count.withLock { $0 } == 0)
        reader.detach()
        reader.wentIdle()
        #expect(!reader.isIdle)
        #expect(reader.claim(when: true) == nil)
    }
}
