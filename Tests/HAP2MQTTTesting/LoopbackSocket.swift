#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Small POSIX socket helpers for loopback-only test servers: free ports, "is it listening yet", and the
/// raw calls `TCPProxy` needs.
public enum LoopbackSocket {
    #if canImport(Glibc)
        static let streamType = Int32(SOCK_STREAM.rawValue)
    #else
        static let streamType = SOCK_STREAM
    #endif

    /// A TCP port on 127.0.0.1 that nothing listens on right now: bind port 0, read the port the kernel
    /// chose, close. Another process could take it before it is used; on a test machine that is rare.
    /// - Throws: `TestSupportError.socket`.
    public static func freePort() throws -> Int {
        let fd = try makeListener(port: 0)
        defer { close(fd) }
        return try boundPort(fd)
    }

    /// True when something accepts TCP connections on 127.0.0.1:`port`.
    public static func acceptsConnections(port: Int) -> Bool {
        guard let fd = try? makeConnection(port: port) else { return false }
        close(fd)
        return true
    }

    /// A listening socket on 127.0.0.1:`port` (0 = any free port).
    static func makeListener(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, streamType, 0)
        guard fd >= 0 else { throw error("socket") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = loopbackAddress(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            let failure = error("bind/listen on 127.0.0.1:\(port)")
            Glibc.close(fd)
            throw failure
        }
        return fd
    }

    /// A socket connected to 127.0.0.1:`port`.
    static func makeConnection(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, streamType, 0)
        guard fd >= 0 else { throw error("socket") }
        var address = loopbackAddress(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let failure = error("connect to 127.0.0.1:\(port)")
            Glibc.close(fd)
            throw failure
        }
        return fd
    }

    static func boundPort(_ fd: Int32) throws -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { throw error("getsockname") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func loopbackAddress(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        return address
    }

    private static func error(_ what: String) -> TestSupportError {
        .socket("\(what): \(String(cString: strerror(errno)))")
    }
}

/// A TCP port on 127.0.0.1 that completes the TCP handshake (in the kernel's backlog) but never accepts
/// or answers: for testing connect and request timeouts. Closed when deallocated.
public final class SilentTCPServer: Sendable {
    /// The port that never answers.
    public let port: Int
    private let descriptor: Int32

    /// - Throws: `TestSupportError.socket`.
    public init() throws {
        descriptor = try LoopbackSocket.makeListener(port: 0)
        do {
            port = try LoopbackSocket.boundPort(descriptor)
        } catch {
            close(descriptor)
            throw error
        }
    }

    deinit {
        close(descriptor)
    }

    /// `mqtt://127.0.0.1:<port>`.
    public var url: String { "mqtt://127.0.0.1:\(port)" }
}
