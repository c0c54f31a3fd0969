// swift-format-ignore-file: AlwaysUseLowerCamelCase
// Why: the shims are named for the C functions they wrap (Slow_connect is connect).

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Connections that send an HTTP request's head a line at a time and never finish it: what a slowloris
/// attack holds open. Each comes from `source` (another loopback address, such as 127.0.0.2, so that the
/// server sees a client other than the test's own requests from 127.0.0.1).
///
/// `@unchecked Sendable`: the descriptors are set in `open` and read after; the test uses it from one task.
public final class SlowHTTPClients: @unchecked Sendable {
    /// The connections the server accepted and has not closed when they were opened.
    public private(set) var descriptors: [Int32] = []

    private init() {}

    /// Opens `count` connections to `127.0.0.1:port` from `source`, each sending a request line and a
    /// `Host` header without the blank line that would end the head.
    public static func open(count: Int, port: UInt16, from source: String) async -> SlowHTTPClients {
        let clients = SlowHTTPClients()
        clients.descriptors = await LoopbackSocket.blocking {
            var opened: [Int32] = []
            for _ in 0..<count {
                guard let fd = connect(port: port, from: source) else { continue }
                let head = "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
                _ = head.withCString { Slow_send(fd, $0, strlen($0)) }
                opened.append(fd)
            }
            return opened
        }
        return clients
    }

    /// Sends one more header line on every connection (each restarts an idle timeout).
    public func trickle() async {
        let descriptors = descriptors
        await LoopbackSocket.blocking {
            for fd in descriptors { _ = "X-Slow: 1\r\n".withCString { Slow_send(fd, $0, strlen($0)) } }
        }
    }

    /// How many connections the server still holds open: a read that would block means open; the end of
    /// the stream or a reset means the server closed it.
    public func stillOpen() -> Int {
        descriptors.filter { fd in
            var byte: UInt8 = 0
            let n = Slow_recv_nonblocking(fd, &byte)
            return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
        }.count
    }

    /// Closes every connection.
    public func close() {
        for fd in descriptors { _ = Slow_close(fd) }
        descriptors = []
    }

    private static func connect(port: UInt16, from source: String) -> Int32? {
        let fd = socket(AF_INET, LoopbackSocket.streamType, 0)
        guard fd >= 0 else { return nil }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        guard withSocketAddress(&local, { Slow_bind(fd, $0, $1) }) == 0,
            withSocketAddress(&remote, { Slow_connect(fd, $0, $1) }) == 0
        else {
            _ = Slow_close(fd)
            return nil
        }
        return fd
    }
}

#if canImport(Glibc)
    private func Slow_bind(_ fd: Int32, _ a: UnsafeMutablePointer<sockaddr>, _ l: socklen_t) -> Int32 {
        Glibc.bind(fd, a, l)
    }
    private func Slow_connect(_ fd: Int32, _ a: UnsafeMutablePointer<sockaddr>, _ l: socklen_t) -> Int32 {
        Glibc.connect(fd, a, l)
    }
    private func Slow_send(_ fd: Int32, _ p: UnsafePointer<CChar>, _ n: Int) -> Int {
        Glibc.send(fd, p, n, Int32(MSG_NOSIGNAL))
    }
    private func Slow_recv_nonblocking(_ fd: Int32, _ p: UnsafeMutablePointer<UInt8>) -> Int {
        Glibc.recv(fd, p, 1, Int32(MSG_DONTWAIT))
    }
    private func Slow_close(_ fd: Int32) -> Int32 { Glibc.close(fd) }
#else
    private func Slow_bind(_ fd: Int32, _ a: UnsafeMutablePointer<sockaddr>, _ l: socklen_t) -> Int32 {
        Darwin.bind(fd, a, l)
    }
    private func Slow_connect(_ fd: Int32, _ a: UnsafeMutablePointer<sockaddr>, _ l: socklen_t) -> Int32 {
        Darwin.connect(fd, a, l)
    }
    private func Slow_send(_ fd: Int32, _ p: UnsafePointer<CChar>, _ n: Int) -> Int { Darwin.send(fd, p, n, 0) }
    private func Slow_recv_nonblocking(_ fd: Int32, _ p: UnsafeMutablePointer<UInt8>) -> Int {
        Darwin.recv(fd, p, 1, MSG_DONTWAIT)
    }
    private func Slow_close(_ fd: Int32) -> Int32 { Darwin.close(fd) }
#endif
