import Synchronization
import SystemSupport
import Testing

/// A buffer that keeps everything, in order.
private struct Everything: HandOffBuffer {
    var elements: [Int] = []
    var head = 0
    mutating func append(_ element: Int) { elements.append(element) }
    mutating func popFirst() -> Int? {
        guard head < elements.count else { return nil }
        defer { head += 1 }
        return elements[head]
    }
    var isEmpty: Bool { head == elements.count }
}

/// `HandOffQueue` read by an attached reader (`attach(_:)`, `take()`), as the Gateway reads the MQTT
/// client's messages: woken once per batch, on the pushing thread, losing nothing.
@Suite("Hand-off queue: an attached reader")
struct HandOffQueueTests {
    @Test("the reader is woken by the first push only, until take() finds the queue empty")
    func oneWakeUpPerBatch() {
        let queue = HandOffQueue(Everything())
        let wakes = Mutex(0)
        queue.attach { wakes.withLock { $0 += 1 } }
        #expect(wakes.withLock { $0 } == 0)
        queue.push(1)
        queue.push(2)
        #expect(wakes.withLock { $0 } == 1)
        #expect(queue.take() == 1)
        queue.push(3)
        #expect(wakes.withLock { $0 } == 1)
        #expect(queue.take() == 2)
        #expect(queue.take() == 3)
        #expect(queue.take() == nil)
        queue.push(4)
        #expect(wakes.withLock { $0 } == 2)
        #expect(queue.take() == 4)
    }

    @Test("attaching with elements waiting wakes the reader at once; a detached reader is not woken")
    func attachAndDetach() {
        let queue = HandOffQueue(Everything())
        queue.push(1)
        let wakes = Mutex(0)
        queue.attach { wakes.withLock { $0 += 1 } }
        #expect(wakes.withLock { $0 } == 1)
        #expect(queue.take() == 1)
        #expect(queue.take() == nil)
        queue.detach()
        queue.push(2)
        #expect(wakes.withLock { $0 } == 1)
        queue.finish()
        queue.push(3)
        #expect(queue.take() == 2)
        #expect(queue.take() == nil)
    }

    @Test("pushes from several threads while the reader drains are all taken, each thread's in order")
    func concurrentPushes() async {
        let queue = HandOffQueue(Everything())
        let taken = Mutex<[Int]>([])
        // The reader drains on the thread that woke it, as the Gateway's task does on libmosquitto's;
        // each element is recorded under the same lock as its take(), so the record keeps their order.
        queue.attach {
            while taken.withLock({ list in queue.take().map { list.append($0) } != nil }) {}
        }
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<4 {
                group.addTask {
                    for index in 0..<1_000 { queue.push(producer * 1_000 + index) }
                }
            }
        }
        let all = taken.withLock { $0 }
        #expect(all.count == 4_000)
        for producer in 0..<4 {
            #expect(all.filter { $0 / 1_000 == producer } == Array(producer * 1_000..<(producer + 1) * 1_000))
        }
    }
}
