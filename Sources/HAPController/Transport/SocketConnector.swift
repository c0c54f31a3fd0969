#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Opens a TCP socket to a host and port: resolves the host (`getaddrinfo`, IPv4 and IPv6 literals or
/// names), then tries each address in turn with a non-blocking `connect` and `poll`, all within one
/// deadline (aiohomekit connects with a 10 s time-out and tries every address of an accessory).
///
/// It blocks its thread: callers run it away from Swift's cooperative pool. It polls in slices of 100 ms
/// to notice `cancelled()`; name resolution itself cannot be cut short.
enum SocketConnector {
    /// A connected, blocking socket and the numeric address it reached.
    struct Connected: Sendable {
        let descriptor: Int32
        let address: String
    }

    static func connect(host: String, port: UInt16, timeout: Duration, sendTimeoutSeconds: Int, cancelled: () -> Bool) -> Result<Connected, TCPError> {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        let timedOut = TCPError.connectTimedOut(host: host, port: port, seconds: Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = POSIX.streamSocket
        hints.ai_flags = AI_NUMERICSERV
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(name, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            return .failure(.resolutionFailed(host: host, reason: rc == 0 ? "no addresses" : String(cString: gai_strerror(rc))))
        }
        defer { freeaddrinfo(first) }

        var lastError = timedOut
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor?.pointee {
            cursor = info.ai_next
            if cancelled() { return .failure(.cancelled) }
            guard clock.now < deadline, let address = info.ai_addr else { return .failure(timedOut) }
            let fd = socket(info.ai_family, info.ai_socktype, info.ai_protocol)
            guard fd >= 0 else {
                lastError = .system(call: "socket", code: errno, message: POSIX.message(errno))
                continue
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            POSIX.setBlocking(fd, false)
            var code: Int32 = 0
            if POSIX.systemConnect(fd, address, info.ai_addrlen) != 0 {
                code = errno
                if code == EINPROGRESS || code == EINTR {
                    switch waitWritable(fd, until: deadline, clock: clock, cancelled: cancelled) {
                    case .ready: code = socketError(fd)
                    case .timedOut:
                        POSIX.systemClose(fd)
                        return .failure(timedOut)
                    case .cancelled:
                        POSIX.systemClose(fd)
                        return .failure(.cancelled)
                    }
                }
            }
            guard code == 0 else {
                POSIX.systemClose(fd)
                lastError = error(code, host: host, port: port, timedOut: timedOut)
                continue
            }
            POSIX.setBlocking(fd, true)
            POSIX.configure(fd, sendTimeoutSeconds: sendTimeoutSeconds)
            let numeric = POSIX.numericHost(address, info.ai_addrlen) ?? name
            return .success(Connected(descriptor: fd, address: numeric))
        }
        return .failure(lastError)
    }

    private enum Wait { case ready, timedOut, cancelled }

    private static func waitWritable(_ fd: Int32, until deadline: ContinuousClock.Instant, clock: ContinuousClock, cancelled: () -> Bool) -> Wait {
        while true {
            if cancelled() { return .cancelled }
            let left = deadline - clock.now
            guard left > .zero else { return .timedOut }
            let sliceMS = Int32(min(100, max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)))
            var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let n = poll(&entry, 1, sliceMS)
            if n > 0 { return .ready }
            if n < 0, errno != EINTR { return .ready }  // SO_ERROR tells what went wrong
        }
    }

    private static func socketError(_ fd: Int32) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length) == 0 else { return errno }
        return value
    }

    private static func error(_ code: Int32, host: String, port: UInt16, timedOut: TCPError) -> TCPError {
        switch code {
        case ECONNREFUSED: return .connectionRefused(host: host, port: port)
        case ENETUNREACH, EHOSTUNREACH: return .unreachable(host: host, port: port, reason: POSIX.message(code))
        case ETIMEDOUT: return timedOut
        default: return .system(call: "connect", code: code, message: POSIX.message(code))
        }
    }
}
