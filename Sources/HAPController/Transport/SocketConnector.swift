import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Opens a TCP socket to a host and port: resolves the host (`getaddrinfo`, IPv4 and IPv6 literals or
/// names), then tries each address in turn with a non-blocking `connect` and `poll`, all within one
/// deadline (aiohomekit connects with a 10 s time-out and tries every address of an accessory).
///
/// `connect` blocks its thread: callers run it away from Swift's cooperative pool. It polls in slices of
/// 100 ms to notice `cancelled()`; name resolution itself cannot be cut short. `start` never blocks: for a
/// numeric address it connects at once when the connection is made without waiting (loopback, often the
/// LAN), else hands back what to wait for.
enum SocketConnector {
    /// A connected, blocking socket and the numeric address it reached.
    struct Connected: Sendable {
        let descriptor: Int32
        let address: String
    }

    /// How far `start` got without waiting.
    enum Start: Sendable {
        /// Connected, or failed for good (a numeric host has one address).
        case done(Result<Connected, TCPError>)
        /// The connect to this numeric address is under way: `finish` waits for it.
        case inProgress(descriptor: Int32, address: String)
        /// `host` is a name: `connect` resolves it.
        case needsLookup
    }

    /// One connect attempt to one address.
    private enum Attempt {
        case connected(Connected)
        case failed(Int32)
        case inProgress(Int32)
    }

    /// Connects to a numeric `host` without waiting (see `Start`).
    static func start(host: String, port: UInt16, sendTimeoutSeconds: Int) -> Start {
        let name = bare(host)
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = POSIX.streamSocket
        // Numeric only: this lookup never waits, a name fails it.
        hints.ai_flags = AI_NUMERICSERV | AI_NUMERICHOST
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, String(port), &hints, &list) == 0, let first = list else { return .needsLookup }
        defer { freeaddrinfo(first) }
        guard let address = first.pointee.ai_addr else { return .needsLookup }
        let timedOut = TCPError.connectTimedOut(host: host, port: port, seconds: 0)
        switch begin(first.pointee, name: name, sendTimeoutSeconds: sendTimeoutSeconds) {
        case .connected(let connected): return .done(.success(connected))
        case .failed(let code): return .done(.failure(error(code, host: host, port: port, timedOut: timedOut)))
        case .inProgress(let fd):
            return .inProgress(descriptor: fd, address: POSIX.numericHost(address, first.pointee.ai_addrlen) ?? name)
        }
    }

    /// Waits for the connect `start` left in progress, until `timeout` after it began.
    static func finish(
        descriptor fd: Int32, address: String, host: String, port: UInt16, timeout: Duration, sendTimeoutSeconds: Int,
        cancelled: () -> Bool
    ) -> Result<Connected, TCPError> {
        let clock = ContinuousClock()
        let timedOut = connectTimedOut(host: host, port: port, timeout: timeout)
        switch wait(
            for: fd, address: address, until: clock.now.advanced(by: timeout), clock: clock, timedOut: timedOut,
            sendTimeoutSeconds: sendTimeoutSeconds, cancelled: cancelled)
        {
        case .connected(let connected): return .success(connected)
        case .failed(let code): return .failure(error(code, host: host, port: port, timedOut: timedOut))
        case .gaveUp(let reason): return .failure(reason)
        }
    }

    /// How waiting for a connect in progress ended.
    private enum Outcome {
        case connected(Connected)
        /// The connect's errno; the socket is closed.
        case failed(Int32)
        /// Timed out or cancelled; the socket is closed.
        case gaveUp(TCPError)
    }

    private static func wait(
        for fd: Int32, address: String, until deadline: ContinuousClock.Instant, clock: ContinuousClock,
        timedOut: TCPError,
        sendTimeoutSeconds: Int, cancelled: () -> Bool
    ) -> Outcome {
        switch waitWritable(fd, until: deadline, clock: clock, cancelled: cancelled) {
        case .ready:
            let code = socketError(fd)
            guard code == 0 else {
                POSIX.systemClose(fd)
                return .failed(code)
            }
            return .connected(complete(fd, address: address, sendTimeoutSeconds: sendTimeoutSeconds))
        case .timedOut:
            POSIX.systemClose(fd)
            return .gaveUp(timedOut)
        case .cancelled:
            POSIX.systemClose(fd)
            return .gaveUp(.cancelled)
        }
    }

    static func connect(host: String, port: UInt16, timeout: Duration, sendTimeoutSeconds: Int, cancelled: () -> Bool)
        -> Result<Connected, TCPError>
    {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        let timedOut = connectTimedOut(host: host, port: port, timeout: timeout)
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = POSIX.streamSocket
        hints.ai_flags = AI_NUMERICSERV
        let name = bare(host)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(name, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            return .failure(
                .resolutionFailed(host: host, reason: rc == 0 ? "no addresses" : String(cString: gai_strerror(rc))))
        }
        defer { freeaddrinfo(first) }

        var lastError = timedOut
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor?.pointee {
            cursor = info.ai_next
            if cancelled() { return .failure(.cancelled) }
            guard clock.now < deadline, let address = info.ai_addr else { return .failure(timedOut) }
            var code: Int32
            switch begin(info, name: name, sendTimeoutSeconds: sendTimeoutSeconds) {
            case .connected(let connected): return .success(connected)
            case .failed(let failure): code = failure
            case .inProgress(let fd):
                let numeric = POSIX.numericHost(address, info.ai_addrlen) ?? name
                switch wait(
                    for: fd, address: numeric, until: deadline, clock: clock, timedOut: timedOut,
                    sendTimeoutSeconds: sendTimeoutSeconds, cancelled: cancelled)
                {
                case .connected(let connected): return .success(connected)
                case .failed(let failure): code = failure
                case .gaveUp(let reason): return .failure(reason)
                }
            }
            lastError = error(code, host: host, port: port, timedOut: timedOut)
        }
        return .failure(lastError)
    }

    /// A socket for `info` and a non-blocking `connect`: connected at once, failed (errno; the socket is
    /// closed), or in progress.
    private static func begin(_ info: addrinfo, name: String, sendTimeoutSeconds: Int) -> Attempt {
        guard let address = info.ai_addr else { return .failed(EINVAL) }
        let fd = socket(info.ai_family, info.ai_socktype, info.ai_protocol)
        guard fd >= 0 else { return .failed(errno) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        POSIX.setBlocking(fd, false)
        guard POSIX.systemConnect(fd, address, info.ai_addrlen) != 0 else {
            return .connected(
                complete(
                    fd, address: POSIX.numericHost(address, info.ai_addrlen) ?? name,
                    sendTimeoutSeconds: sendTimeoutSeconds))
        }
        let code = errno
        guard code == EINPROGRESS || code == EINTR else {
            POSIX.systemClose(fd)
            return .failed(code)
        }
        // On loopback the handshake has usually finished by now: look without waiting.
        var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        guard poll(&entry, 1, 0) > 0 else { return .inProgress(fd) }
        let result = socketError(fd)
        guard result == 0 else {
            POSIX.systemClose(fd)
            return .failed(result)
        }
        return .connected(
            complete(
                fd, address: POSIX.numericHost(address, info.ai_addrlen) ?? name, sendTimeoutSeconds: sendTimeoutSeconds
            ))
    }

    /// The socket of a finished connect, blocking again and configured.
    private static func complete(_ fd: Int32, address: String, sendTimeoutSeconds: Int) -> Connected {
        POSIX.setBlocking(fd, true)
        POSIX.configure(fd, sendTimeoutSeconds: sendTimeoutSeconds)
        return Connected(descriptor: fd, address: address)
    }

    /// `host` without the brackets of an IPv6 literal.
    private static func bare(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    private static func connectTimedOut(host: String, port: UInt16, timeout: Duration) -> TCPError {
        .connectTimedOut(host: host, port: port, seconds: timeout.inSeconds)
    }

    private enum Wait { case ready, timedOut, cancelled }

    private static func waitWritable(
        _ fd: Int32, until deadline: ContinuousClock.Instant, clock: ContinuousClock, cancelled: () -> Bool
    ) -> Wait {
        while true {
            if cancelled() { return .cancelled }
            let left = deadline - clock.now
            guard left > .zero else { return .timedOut }
            let sliceMS = Int32(min(100, max(1, left.inMilliseconds)))
            var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            do throws(SystemCallError) {
                if try SystemCall.retryingInterrupts("poll", { poll(&entry, 1, sliceMS) }) > 0 { return .ready }
            } catch {
                return .ready  // SO_ERROR tells what went wrong
            }
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
