#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few socket calls whose spelling differs between Glibc and Darwin.
enum POSIX {
    #if canImport(Glibc)
        static let streamSocket = Int32(SOCK_STREAM.rawValue)
        /// No SIGPIPE when the peer has gone: Linux asks per call.
        static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
        static let streamSocket = SOCK_STREAM
        static let sendFlags: Int32 = 0
    #endif

    /// The text of an errno value.
    static func message(_ code: Int32) -> String { String(cString: strerror(code)) }

    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) {
        var v = value
        _ = setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size))
    }

    /// TCP_NODELAY (requests are small and latency matters), SO_KEEPALIVE (notice dead accessories), a
    /// send time-out so a peer that stops reading cannot block a sender forever, and on Darwin no
    /// SIGPIPE.
    static func configure(_ fd: Int32, sendTimeoutSeconds: Int) {
        setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        setOption(fd, SOL_SOCKET, SO_KEEPALIVE, 1)
        #if canImport(Darwin)
            setOption(fd, SOL_SOCKET, SO_NOSIGPIPE, 1)
        #endif
        var timeout = timeval(tv_sec: sendTimeoutSeconds, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    static func setBlocking(_ fd: Int32, _ blocking: Bool) {
        let flags = fcntl(fd, F_GETFL, 0)
        _ = fcntl(fd, F_SETFL, blocking ? flags & ~O_NONBLOCK : flags | O_NONBLOCK)
    }

    // Wrappers so that types with their own `send`, `close` or `connect` can call the system's.
    static func systemConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
        connect(fd, address, length)
    }
    static func systemSend(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        send(fd, bytes, count, sendFlags)
    }
    /// `send` with MSG_DONTWAIT: what the socket buffer takes now, EAGAIN when it is full.
    static func systemSendWithoutBlocking(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        send(fd, bytes, count, sendFlags | Int32(MSG_DONTWAIT))
    }
    static func systemReceive(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        recv(fd, buffer, count, 0)
    }
    /// `recv` with MSG_DONTWAIT: what has arrived, EAGAIN when nothing has.
    static func systemReceiveWithoutBlocking(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        recv(fd, buffer, count, Int32(MSG_DONTWAIT))
    }
    static func systemShutdown(_ fd: Int32) { _ = shutdown(fd, Int32(SHUT_RDWR)) }
    /// Readies an abortive close: `SO_LINGER` on with no time, so that `close` sends a reset and drops
    /// what the kernel still holds to send instead of delivering it later; then only the receiving side
    /// is shut down (it wakes a reader, and sends nothing: a FIN would go out after the unsent bytes).
    static func systemShutdownAbortively(_ fd: Int32) {
        var abort = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort, socklen_t(MemoryLayout<linger>.size))
        _ = shutdown(fd, Int32(SHUT_RD))
    }
    static func systemClose(_ fd: Int32) { _ = close(fd) }

    /// The numeric address of a socket address (`192.168.1.20`, `fe80::1%eth0`).
    static func numericHost(_ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> String? {
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else {
            return nil
        }
        return String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
