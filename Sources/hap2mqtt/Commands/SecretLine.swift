import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One line of secret input (a setup code, a backup's passphrase) from a file descriptor or from the
/// terminal with echo off, so that it never shows in `ps`, in a terminal's scroll-back or in a log.
enum SecretLine {
    /// `fd` up to the first line break or the end of input, one byte at a time so that nothing past the
    /// line is taken from a pipe; nil when `maximumLength` bytes hold no line break (nothing more is read).
    /// - Throws: `SystemCallError` when a read fails (`Is a directory`).
    static func read(from fd: Int32, maximumLength: Int) throws(SystemCallError) -> [UInt8]? {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = try SystemCall.retryingInterrupts("read") { readInput(fd, &byte, 1) }
            guard count == 1, byte != UInt8(ascii: "\n") else { return line }
            guard line.count < maximumLength else { return nil }
            line.append(byte)
        }
    }

    /// The first line of standard input, as `read(from:maximumLength:)`; empty when it cannot be read
    /// (nothing typed is the same as nothing to read).
    static func standardInput(maximumLength: Int) -> [UInt8]? {
        do {
            return try read(from: STDIN_FILENO, maximumLength: maximumLength)
        } catch {
            return []
        }
    }

    /// Whether standard input is a terminal, where `readWithoutEcho` can ask.
    static var canPrompt: Bool { isatty(STDIN_FILENO) == 1 }

    /// Shows `prompt` on standard error and reads a line from the terminal with echo off; echo is put
    /// back before returning.
    static func readWithoutEcho(prompt: String, maximumLength: Int) -> [UInt8]? {
        var saved = termios()
        let canSilence = tcgetattr(STDIN_FILENO, &saved) == 0
        if canSilence {
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO)
            // Echo goes off before the prompt shows: a line typed after the prompt is never echoed, and
            // never discarded by this change.
            _ = tcsetattr(STDIN_FILENO, TCSANOW, &silent)
        }
        defer {
            if canSilence { _ = tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
            StandardStream.write("\n", to: STDERR_FILENO)
        }
        StandardStream.write(prompt, to: STDERR_FILENO)
        return standardInput(maximumLength: maximumLength)
    }
}

#if canImport(Glibc)
    private let readInput = Glibc.read
#else
    private let readInput = Darwin.read
#endif
