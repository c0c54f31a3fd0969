import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A stand-in for systemd's notify socket: a unix datagram socket in a temporary folder that records
/// what a `Type=notify` service sends with `sd_notify(3)` (`READY=1`, `WATCHDOG=1`, `STATUS=…`). Give
/// its `path` to the process as `NOTIFY_SOCKET`.
public final class NotifySocket: Sendable {
    /// The socket's path, for `NOTIFY_SOCKET`.
    public let path: String
    private let directory: URL
    private let descriptor: Int32
    /// The datagrams read so far, one message each (assignments separated by newlines).
    private let received = Mutex<[String]>([])

    /// Binds the socket.
    /// - Throws: `TestSupportError.socket` when it cannot be made or bound.
    public init() throws {
        directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("notify-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("notify.sock").path
        #if canImport(Glibc)
            let type = Int32(SOCK_DGRAM.rawValue)
        #else
            let type = SOCK_DGRAM
        #endif
        let fd = socket(AF_UNIX, type, 0)
        guard fd >= 0 else { throw TestSupportError.socket("socket(AF_UNIX): \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() where index < raw.count - 1 { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw TestSupportError.socket("bind(\(path)): \(reason)")
        }
        descriptor = fd
    }

    deinit {
        close(descriptor)
        try? FileManager.default.removeItem(at: directory)
    }

    /// Every message received so far, in order (reads what is waiting on the socket first).
    public var messages: [String] {
        received.withLock { list in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                guard n > 0 else { break }
                list.append(String(decoding: buffer[0..<n], as: UTF8.self))
            }
            return list
        }
    }

    /// The messages that carry the assignment `assignment` (`READY=1`) on one of their lines.
    public func messages(with assignment: String) -> [String] {
        messages.filter { $0.split(separator: "\n").contains { $0 == assignment } }
    }
}
