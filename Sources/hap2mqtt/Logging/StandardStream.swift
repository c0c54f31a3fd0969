import SystemSupport

/// Whole writes of text to a file descriptor (standard output, standard error, a test's pipe),
/// straight to the system without stdio's buffer, so nothing is lost at `exit`.
enum StandardStream {
    /// Writes all of `text` to `fileDescriptor`. Errors are dropped: there is nowhere left to report them.
    static func write(_ text: String, to fileDescriptor: Int32) {
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { raw in try? SystemCall.writeAll(raw, to: fileDescriptor) }
    }
}
