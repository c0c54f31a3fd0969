import Foundation
import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP connection opened and closed at once, to learn whether a host accepts connections on a port
/// within a time limit; see `MQTTConnection.startAttempt`.
enum TCPProbe {
    /// Tries every address of `host` in turn, each with a non-blocking `connect(2)` watched by `poll(2)`
    /// in 250 ms steps (so that `isStopping` is noticed), until one accepts or `timeout` has passed.
    /// - Returns: nil when an address accepted the connection; otherwise the `errno` of the last failure
    ///   (`ETIMEDOUT` when the time ran out, `ECANCELED` when `isStopping` said so, `EHOSTUNREACH` when
    ///   the name has no address).
    static func connect(host: String, port: Int, timeout: Duration, isStopping: () -> Bool) -> Int32? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let list else { return EHOSTUNREACH }
        defer { freeaddrinfo(list) }
        let deadline = ContinuousClock.now + timeout
        var lastError = EHOSTUNREACH
        var next: UnsafeMutablePointer<addrinfo>? = list
        while let address = next {
            next = address.pointee.ai_next
            guard let code = attempt(address.pointee, until: deadline, isStopping: isStopping) else { return nil }
            lastError = code
            if code == ETIMEDOUT || code == ECANCELED { break }
        }
        return lastError
    }

    private static func attempt(_ address: addrinfo, until deadline: ContinuousClock.Instant, isStopping: () -> Bool)
        -> Int32?
    {
        let descriptor = socket(address.ai_family, address.ai_socktype, address.ai_protocol)
        guard descriptor >= 0 else { return errno }
        defer { close(descriptor) }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        if Foundation.connect(descriptor, address.ai_addr, address.ai_addrlen) == 0 { return nil }
        guard errno == EINPROGRESS || errno == EINTR else { return errno }
        while true {
            if isStopping() { return ECANCELED }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return ETIMEDOUT }
            var watched = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            let step = Int32(min(left, .milliseconds(250)).inMilliseconds)
            let ready: Int32
            do {
                ready = try SystemCall.retryingInterrupts("poll") { poll(&watched, 1, max(step, 1)) }
            } catch {
                return error.code
            }
            guard ready > 0 else { continue }
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 else { return errno }
            return failure == 0 ? nil : failure
        }
    }
}
