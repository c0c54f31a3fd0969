#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 socket address to listen on, from a numeric address or `localhost` (getaddrinfo(3),
/// numeric service, passive).
struct SocketAddress {
    private var storage = sockaddr_storage()
    private let length: socklen_t
    let isIPv6: Bool

    /// Nil when `host` is no address (getaddrinfo finds none for it).
    init?(host: String, port: UInt16) {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else { return nil }
        defer { freeaddrinfo(found) }
        // IPv4 first when a name has both (`localhost`).
        var chosen = first
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next {
            if entry.pointee.ai_family == AF_INET {
                chosen = entry
                break
            }
            next = entry.pointee.ai_next
        }
        guard let source = chosen.pointee.ai_addr else { return nil }
        length = chosen.pointee.ai_addrlen
        isIPv6 = chosen.pointee.ai_family == AF_INET6
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: source, count: Int(length)))
        }
    }

    /// Whether this address is a loopback one (127.0.0.0/8 or ::1): only this machine can connect.
    var isLoopback: Bool {
        withUnsafeBytes(of: storage) { raw in
            if isIPv6 {
                let address = raw.load(
                    fromByteOffset: MemoryLayout<sockaddr_in6>.offset(of: \.sin6_addr)!, as: in6_addr.self)
                return withUnsafeBytes(of: address) { bytes in bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1
                }
            }
            let address = raw.load(fromByteOffset: MemoryLayout<sockaddr_in>.offset(of: \.sin_addr)!, as: in_addr.self)
            return withUnsafeBytes(of: address) { $0[0] == 127 }
        }
    }

    func withPointer<T>(_ body: (UnsafePointer<sockaddr>) -> T) -> T {
        withUnsafeBytes(of: storage) { raw in body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self)) }
    }
}
