/// Takes a connection's bytes where they were read (`TCPConnection.startReading(into:)`): on the read
/// loop's thread on Linux (`ReadLoop`), else on the connection's reader thread. Calls come one at a time,
/// in the order the bytes arrived; `ended` comes once, last.
protocol SocketReader: AnyObject, Sendable {
    /// Bytes that arrived, at least one; the memory is valid only during the call.
    func received(_ bytes: UnsafeRawBufferPointer)
    /// No more bytes will come: `.closedByPeer`, `.reset`, `.closed` after `close()`, or `.system`.
    func ended(_ error: TCPError)
}
