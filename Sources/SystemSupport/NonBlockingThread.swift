#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Marks the threads that must not block, and checks blocking calls against the mark
/// (docs/ARCHITECTURE.md "Concurrency").
///
/// The home store's executor runs its jobs, and the Gateway's, on whatever thread enqueued them:
/// libmosquitto's loop thread with a `/set`, a HAP connection's read loop with an event. A job there that
/// waits on the disk (an `fsync`, which takes tens of milliseconds on an SD card) or on the network holds
/// up every command and event of the home, and the thread it borrowed. `StoreExecutor` marks the thread
/// for as long as it runs jobs; the calls that block (`StateDirectory.write` with `fsync`,
/// `SpaceReservation`) call `checkMayBlock(_:)`, which stops a debug build (every test) at the offending
/// call, and costs nothing in a release build.
///
/// The mark lives in a POSIX thread-specific value, so it follows the thread, not the task: a job that
/// hands blocking work to another thread (`Task.detached`, a thread of its own) is not marked there.
public enum NonBlockingThread {
    /// The thread-specific key of the mark; made once per process.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed: \(status)")
        return key
    }()

    /// Whether the calling thread is marked as one that must not block.
    public static var isMarked: Bool { pthread_getspecific(key) != nil }

    /// Runs `body` with the calling thread marked, then restores the mark as it was (runs nest).
    /// - Parameter body: the work that must not block, such as an executor's jobs.
    public static func run<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
        defer { pthread_setspecific(key, previous) }
        return try body()
    }

    /// Stops a debug build when the calling thread must not block; does nothing in a release build.
    /// - Parameter call: what blocks, for the message (`fsync of slugs.json`).
    public static func checkMayBlock(
        _ call: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line
    ) {
        #if DEBUG
            if isMarked {
                preconditionFailure(
                    "\(call()) on a thread that must not block (the home store's executor): move it off the executor",
                    file: file, line: line)
            }
        #endif
    }
}
