#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one way hap2mqtt makes a blocking system call: again after an interruption, and with a typed
/// error otherwise.
///
/// A call that blocks (`read`, `write`, `send`, `recv`, `poll`) fails with `EINTR` when a signal arrives
/// before it did anything (signal(7), "Interruption of system calls and library functions by signal
/// handlers"); that is no failure, and the call is simply made again.
public enum SystemCall {
    /// Calls `body`, a system call that returns -1 and sets `errno` when it fails, until it does not fail
    /// with `EINTR`.
    /// - Parameter call: the call's name for the error, as its manual page spells it (`read`, `send`).
    /// - Returns: what `body` returned, never negative.
    /// - Throws: `SystemCallError` with `call` and `errno` for any failure other than `EINTR`.
    @discardableResult
    public static func retryingInterrupts<Result: BinaryInteger>(
        _ call: String, _ body: () -> Result
    ) throws(SystemCallError) -> Result {
        while true {
            let result = body()
            if result >= 0 { return result }
            let code = errno
            if code != EINTR { throw SystemCallError(call: call, code: code) }
        }
    }

    /// The whole content of the file at `path`, read with `open(2)` and `read(2)` so that a failure has the
    /// system's short reason (`Permission denied`, `Is a directory`), reading no more than `maximumSize`
    /// bytes: a path that names `/dev/zero` or a huge file by mistake must not take the memory.
    /// - Throws: `SystemCallError` for `open` or `read`; `EFBIG` (call `read`) past `maximumSize`.
    public static func readFile(atPath path: String, maximumSize: Int) throws(SystemCallError) -> [UInt8] {
        let fd = try retryingInterrupts("open") { open(path, O_RDONLY | O_CLOEXEC) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let outcome = chunk.withUnsafeMutableBytes { raw in
                Result { () throws(SystemCallError) in
                    try retryingInterrupts("read") { systemRead(fd, raw.baseAddress, raw.count) }
                }
            }
            let count = try outcome.get()
            if count == 0 { return bytes }
            guard bytes.count + count <= maximumSize else { throw SystemCallError(call: "read", code: EFBIG) }
            bytes += chunk[..<count]
        }
    }

    /// Writes every byte of `bytes` to `fileDescriptor` (which it does not close) with `write(2)`, again
    /// after short writes and interruptions.
    /// - Throws: `SystemCallError` (`write`) for the first failure; the bytes before it were written.
    public static func writeAll(_ bytes: UnsafeRawBufferPointer, to fileDescriptor: Int32) throws(SystemCallError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            offset += try retryingInterrupts("write") {
                systemWrite(fileDescriptor, base + offset, bytes.count - offset)
            }
        }
    }
}

/// A system call failed: which one, and the `errno` it set.
public struct SystemCallError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The call, as its manual page spells it: `read`, `write`, `send`, `poll`.
    public let call: String
    /// The `errno` value (`EACCES`, `ECONNRESET`, …), never `EINTR`.
    public let code: Int32

    public init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    /// The system's short text for `code`: `Permission denied`.
    public var reason: String { String(cString: strerror(code)) }

    /// `read: Permission denied`.
    public var description: String { "\(call): \(reason)" }
}

#if canImport(Glibc)
    private let systemWrite = Glibc.write
    private let systemRead = Glibc.read
#else
    private let systemWrite = Darwin.write
    private let systemRead = Darwin.read
#endif
