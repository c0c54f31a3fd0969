#if os(Linux)
    internal import Foundation
    import CEpoll
    import Synchronization

    /// The one thread that reads the HAP connections on Linux: epoll(7) over the sockets of every
    /// `TCPConnection` that reads in place (`startReading(into:)`), so that ten accessories cost one thread
    /// and one 16 KiB buffer instead of ten, and each read is decrypted, parsed and handed on by its
    /// `SocketReader` on this thread, without waking another thread first (a hand-off to another thread
    /// costs a thread wake per answer and two per event: hap2mqtt-bench hap and latency).
    ///
    /// Level-triggered: a socket with bytes left after one `recv` is reported again. A socket leaves the
    /// loop only here, once its stream ended (`SocketState.readAvailable` said so), and `SocketState` closes
    /// the descriptor only after that, so its number is never reused while the loop may still read it.
    /// Registering from another thread needs no wake-up: epoll_ctl applies to a waiting epoll_wait.
    final class ReadLoop: Sendable {
        /// The process's loop, started at first use; nil when no epoll instance could be made (then every
        /// connection reads on a thread of its own, as on other systems).
        static let shared: ReadLoop? = ReadLoop()

        private let epoll: Int32
        private let sockets = Mutex<[UInt64: SocketState]>([:])
        private let nextTag = Atomic<UInt64>(0)
        /// Ready sockets taken from one epoll_wait.
        private static let batch = 64

        private init?() {
            epoll = hap2mqtt_epoll_create()
            guard epoll >= 0 else { return nil }
            let thread = Thread { [self] in run() }
            thread.name = "hap.read"
            thread.start()
        }

        /// Reads `socket`'s descriptor `fd` from now on; false when epoll refused it (the caller then reads
        /// on a thread of its own).
        func add(_ socket: SocketState, descriptor fd: Int32) -> Bool {
            let tag = nextTag.add(1, ordering: .relaxed).newValue
            sockets.withLock { $0[tag] = socket }
            guard hap2mqtt_epoll_add(epoll, fd, tag) == 0 else {
                sockets.withLock { _ = $0.removeValue(forKey: tag) }
                return false
            }
            return true
        }

        private func run() {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: SocketState.readSize, alignment: 1)
            // Not an Array: iterating a slice of one copies it at the next epoll_wait, and in this function,
            // which never returns, the copies are never released (544 bytes per wake-up, 110 MB and more
            // in `hap2mqtt-bench flood`'s 30 s event flood).
            let tags = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: Self.batch)
            tags.initialize(repeating: 0)
            while true {
                let count = hap2mqtt_epoll_wait(epoll, tags.baseAddress, Int32(Self.batch), -1)
                // EINTR (a signal) is the only failure of a valid epoll_wait: wait again.
                guard count > 0 else { continue }
                for index in 0..<Int(count) {
                    let tag = tags[index]
                    guard let socket = sockets.withLock({ $0[tag] }) else { continue }
                    guard let fd = socket.readAvailable(into: buffer) else { continue }
                    _ = hap2mqtt_epoll_remove(epoll, fd)
                    sockets.withLock { _ = $0.removeValue(forKey: tag) }
                    socket.readerFinished()
                }
            }
        }
    }
#endif
