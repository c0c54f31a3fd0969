#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The exclusive lock one `hap2mqtt run` holds on its state directory (`flock` on `.lock` in it, mode
/// 0600): two gateways on one directory would overwrite each other's `slugs.json` and `options.json`
/// (docs/DESIGN.md "Configuration and files"). The kernel drops the lock when the process ends, however
/// it ends, so a crash never leaves the directory locked. `pair`, `unpair` and `discover` take no lock:
/// they work beside the running gateway, which takes their changes up.
public final class StateDirectoryLock: Sendable {
    /// The lock file's name in the state directory.
    public static let fileName = ".lock"

    private let descriptor: Int32

    /// Takes the lock on `directory`, which must exist, and writes this process's id into the lock file,
    /// for the message a second `run` gives.
    /// - Throws: `StateDirectoryLockError.inUse` when another process holds it, with its process id when
    ///   the file names one; `StateDirectoryLockError.io` when the lock file cannot be opened or locked.
    public init(_ directory: StateDirectory) throws(StateDirectoryLockError) {
        let path = directory.url(Self.fileName).path
        var fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        // A lock file another user made (an earlier run as root) still locks when read-only.
        if fd < 0, errno == EACCES { fd = open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw .io(path: path, reason: String(cString: strerror(errno))) }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let failure = errno
            if failure == EINTR { continue }
            let holder = Self.processID(in: fd)
            close(fd)
            if failure == EWOULDBLOCK { throw .inUse(directory: directory.path, processID: holder) }
            throw .io(path: path, reason: String(cString: strerror(failure)))
        }
        descriptor = fd
        let text = Array("\(getpid())\n".utf8)
        if ftruncate(fd, 0) == 0 { _ = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } }
    }

    deinit { close(descriptor) }

    /// The process id the holder wrote into the lock file, if it reads as one.
    private static func processID(in fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer.prefix(count).prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self))
    }
}
