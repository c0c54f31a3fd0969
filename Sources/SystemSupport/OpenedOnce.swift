import Synchronization

/// A value made once for the process and kept, made on first use: the function table of a C library that
/// is opened with `dlopen` only when a feature needs it (Avahi's for DNS-SD, libmicrohttpd's for the web
/// page). A failed attempt is not kept, so installing the missing library lets the next use succeed
/// without a restart. Concurrent first uses open it once: the opening runs under the lock.
public final class OpenedOnce<Value: Sendable>: Sendable {
    private let opened = Mutex<Value?>(nil)

    /// Nothing opened yet.
    public init() {}

    /// The value, made by `open` on the first call that succeeds and returned as it is after that.
    /// - Throws: what `open` throws; the next call tries again.
    public func value<Failure: Error>(opening open: () throws(Failure) -> Value) throws(Failure) -> Value {
        try opened.withLock { (opened: inout Value?) throws(Failure) -> Value in
            if let opened { return opened }
            let made = try open()
            opened = made
            return made
        }
    }
}
