// swift-format-ignore-file: AlwaysUseLowerCamelCase
// Why: the shims are named for the C functions they wrap (Glibc_recv is recv).

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A listening TCP socket on loopback for tests: a stand-in accessory or broker, or a way to find a free
/// port. Only loopback addresses are used (tests never touch the machine's real interfaces).
public struct LoopbackListener: Sendable {
    /// The listening descriptor.
    public let descriptor: Int32
    /// The port the system chose.
    public let port: UInt16

    /// Listens on `address` (`127.0.0.1` or `::1`) on a free port. `backlog` 0 makes a listener that,
    /// never accepting, leaves further connects hanging (for time-out tests).
    /// - Throws: `LoopbackSocketError` naming the call that failed.
    public static func open(_ address: String = "127.0.0.1", backlog: Int32 = 8) throws(LoopbackSocketError)
        -> LoopbackListener
    {
        let v6 = address.contains(":")
        let fd = socket(v6 ? AF_INET6 : AF_INET, LoopbackSocket.streamType, 0)
        guard fd >= 0 else { throw .system("socket", errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var port: UInt16 = 0
        if v6 {
            var a = sockaddr_in6()
            a.sin6_family = sa_family_t(AF_INET6)
            inet_pton(AF_INET6, address, &a.sin6_addr)
            guard withSocketAddress(&a, { bind(fd, $0, $1) == 0 && getsockname(fd, $0, &$1) == 0 }) else {
                return try fail(fd, "bind")
            }
            port = UInt16(bigEndian: a.sin6_port)
        } else {
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            inet_pton(AF_INET, address, &a.sin_addr)
            guard withSocketAddress(&a, { bind(fd, $0, $1) == 0 && getsockname(fd, $0, &$1) == 0 }) else {
                return try fail(fd, "bind")
            }
            port = UInt16(bigEndian: a.sin_port)
        }
        guard listen(fd, backlog) == 0 else { return try fail(fd, "listen") }
        return LoopbackListener(descriptor: fd, port: port)
    }

    /// A port on 127.0.0.1 that was free a moment ago (bound, read, released).
    /// - Throws: `LoopbackSocketError` when no socket can be bound.
    public static func freePort() throws(LoopbackSocketError) -> UInt16 {
        let listener = try open()
        listener.close()
        return listener.port
    }

    /// Waits for one connection and returns its descriptor (close it with `LoopbackSocket.close`).
    public func accept() async -> Int32 {
        let fd = descriptor
        return await LoopbackSocket.blocking { Glibc_accept(fd) }
    }

    /// Stops listening.
    public func close() { LoopbackSocket.close(descriptor) }

    private static func fail(_ fd: Int32, _ call: String) throws(LoopbackSocketError) -> LoopbackListener {
        let code = errno
        LoopbackSocket.close(fd)
        throw .system(call, code)
    }
}

/// Runs `body` with `address` seen as a `sockaddr` and its length.
func withSocketAddress<A, R>(_ address: inout A, _ body: (UnsafeMutablePointer<sockaddr>, inout socklen_t) -> R) -> R {
    var length = socklen_t(MemoryLayout<A>.size)
    return withUnsafeMutablePointer(to: &address) { p in
        p.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, &length) }
    }
}

/// A socket call failed in a test helper.
public enum LoopbackSocketError: Error, Sendable, CustomStringConvertible {
    case system(String, Int32)

    public var description: String {
        switch self {
        case .system(let call, let code): return "\(call) failed: \(String(cString: strerror(code)))"
        }
    }
}

/// Blocking socket calls for tests, each on a thread of its own so that they never block Swift's
/// cooperative pool.
extension LoopbackSocket {
    /// Runs blocking work on a new thread.
    ///
    /// Not on Dispatch's global queue: on Linux, Swift's default executor runs its jobs on those threads
    /// too, and each `accept` or `read` parked there holds one until the pool grows, about one thread a
    /// second. With a dozen tests waiting for a peer at the start of a run, every task of the test
    /// process stalled for minutes (a 10 ms Task.sleep took 6 s with eight such waits, 25 s with 32).
    public static func blocking<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { c in Thread { c.resume(returning: work()) }.start() }
    }

    /// Connects to `127.0.0.1:port`; the descriptor, or nil when refused.
    public static func connect(port: UInt16) async -> Int32? {
        await blocking {
            let fd = socket(AF_INET, streamType, 0)
            guard fd >= 0 else { return nil }
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_port = port.bigEndian
            inet_pton(AF_INET, "127.0.0.1", &a.sin_addr)
            guard withSocketAddress(&a, { Glibc_connect(fd, $0, $1) }) == 0 else {
                close(fd)
                return nil
            }
            return fd
        }
    }

    /// Writes all of `bytes`; false when the peer is gone.
    @discardableResult
    public static func write(_ fd: Int32, _ bytes: [UInt8]) async -> Bool {
        await blocking {
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count, let base = raw.baseAddress {
                    let n = Glibc_send(fd, base + offset, raw.count - offset)
                    if n <= 0 { return false }
                    offset += n
                }
                return true
            }
        }
    }

    /// Reads until `count` bytes or the end of the stream.
    public static func read(_ fd: Int32, count: Int) async -> [UInt8] {
        await blocking {
            var out: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while out.count < count {
                let want = min(buffer.count, count - out.count)
                let n = buffer.withUnsafeMutableBytes { raw in raw.baseAddress.map { Glibc_recv(fd, $0, want) } ?? -1 }
                if n <= 0 { break }
                out += buffer[0..<n]
            }
            return out
        }
    }

    /// Reads one line ending in `\n` (without it); nil when the stream ends first.
    public static func readLine(_ fd: Int32) async -> String? {
        await blocking {
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while Glibc_recv(fd, &byte, 1) == 1 {
                if byte == 0x0A { return String(decoding: line, as: UTF8.self) }
                line.append(byte)
            }
            return nil
        }
    }

    /// Whether the peer has closed: the next read returns end of stream.
    public static func readsEndOfStream(_ fd: Int32) async -> Bool {
        await blocking {
            var byte: UInt8 = 0
            return Glibc_recv(fd, &byte, 1) == 0
        }
    }

    public static func close(_ fd: Int32) { _ = Glibc_close(fd) }
}

#if canImport(Glibc)
    private let Glibc_accept: @Sendable (Int32) -> Int32 = { Glibc.accept($0, nil, nil) }
    private let Glibc_connect: @Sendable (Int32, UnsafeMutablePointer<sockaddr>, socklen_t) -> Int32 = {
        Glibc.connect($0, $1, $2)
    }
    private let Glibc_send: @Sendable (Int32, UnsafeRawPointer, Int) -> Int = {
        Glibc.send($0, $1, $2, Int32(MSG_NOSIGNAL))
    }
    private let Glibc_recv: @Sendable (Int32, UnsafeMutableRawPointer, Int) -> Int = { Glibc.recv($0, $1, $2, 0) }
    private let Glibc_close: @Sendable (Int32) -> Int32 = { Glibc.close($0) }
#else
    private let Glibc_accept: @Sendable (Int32) -> Int32 = { Darwin.accept($0, nil, nil) }
    private let Glibc_connect: @Sendable (Int32, UnsafeMutablePointer<sockaddr>, socklen_t) -> Int32 = {
        Darwin.connect($0, $1, $2)
    }
    private let Glibc_send: @Sendable (Int32, UnsafeRawPointer, Int) -> Int = { Darwin.send($0, $1, $2, 0) }
    private let Glibc_recv: @Sendable (Int32, UnsafeMutableRawPointer, Int) -> Int = { Darwin.recv($0, $1, $2, 0) }
    private let Glibc_close: @Sendable (Int32) -> Int32 = { Darwin.close($0) }
#endif
