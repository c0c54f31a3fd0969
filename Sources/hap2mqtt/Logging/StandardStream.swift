#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole writes of text to a file descriptor (standard output, standard error, a test's pipe),
/// straight to the system without stdio's buffer, so nothing is lost at `exit`.
enum StandardStream {
    /// Writes all of `text` to `fileDescriptor`, retrying after signals and short writes. Errors are
    /// dropped: there is nowhere left to report them.
    static func write(_ text: String, to fileDescriptor: Int32) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { systemWrite(fileDescriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}

#if canImport(Glibc)
private let systemWrite = Glibc.write
#else
private let systemWrite = Darwin.write
#endif
