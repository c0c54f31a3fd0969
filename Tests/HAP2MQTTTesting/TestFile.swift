public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes the files tests make (configurations, logs, fixtures) without `fsync`.
///
/// Foundation's `write(to:)` and `FileManager.createFile` fsync every file, and they run on the
/// cooperative pool, which has one thread per core. With builds writing to the same disk an fsync took
/// seconds (ext4 commits its whole journal for it): two of them held both threads of a 2-core machine,
/// and every other test's deadline ran out meanwhile. A test file needs no durability.
public enum TestFile {
    /// Creates or truncates `path` and writes `bytes` to it, with `mode` for a new file.
    /// - Throws: `TestSupportError.commandFailed` naming the file and the system error.
    public static func write(_ bytes: some Collection<UInt8>, to path: String, mode: UInt32 = 0o644) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode_t(mode))
        guard fd >= 0 else {
            throw TestSupportError.commandFailed("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let data = Array(bytes)
        var written = 0
        while written < data.count {
            let n = data[written...].withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                throw TestSupportError.commandFailed("cannot write \(path): \(String(cString: strerror(errno)))")
            }
            written += n
        }
    }

    /// Writes `text` as UTF-8; see `write(_:to:mode:)`.
    public static func write(_ text: String, to url: URL, mode: UInt32 = 0o644) throws {
        try write(Array(text.utf8), to: url.path, mode: mode)
    }

    /// An empty file at `path` (for a process's output), replacing what was there.
    public static func create(_ path: String) {
        try? write([UInt8](), to: path)
    }
}
