import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads the setup code of `hap2mqtt pair` from where `SetupCodeInput` says: a file, standard input, or
/// the terminal with echo off, so that it never shows in `ps`, in a terminal's scroll-back or in a log.
enum SetupCodeReader {
    /// The longest line read; a setup code is 10 characters, so anything longer is not one. Nothing
    /// past it is read: a file or input without a line break (`/dev/zero`) is refused, not read whole.
    static let maximumLength = 256

    /// The code's text, without surrounding spaces and line breaks.
    /// - Throws: `CommandFailure` (status 2) when the file cannot be read, the first `maximumLength` bytes
    ///   hold no line break, standard input ends without a line, or no code option was given and standard
    ///   input is not a terminal.
    static func read(_ input: SetupCodeInput) throws(CommandFailure) -> Secret {
        switch input {
        case .argument(let secret):
            return secret
        case .file(let path):
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw usage("--code-file: cannot read \(path): \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            let line: [UInt8]?
            do {
                line = try readLine(from: fd)
            } catch {
                throw usage("--code-file: cannot read \(path): \(error.reason)")
            }
            return try firstLine(line, from: input.label)
        case .standardInput:
            return try firstLine(inputLine(), from: "standard input (--code -)")
        case .prompt:
            guard isatty(STDIN_FILENO) == 1 else {
                throw usage(
                    "no setup code: give --code-file PATH or --code - (standard input), or run pair in a terminal to type it"
                )
            }
            return try firstLine(readWithoutEcho(prompt: "Setup code (XXX-XX-XXX, not shown): "), from: "the terminal")
        }
    }

    private static func usage(_ message: String) -> CommandFailure {
        CommandFailure(message: message, status: Startup.usageErrorStatus)
    }

    /// The code on `line`, what `readLine(from:)` read: nil when no line ended within `maximumLength`.
    private static func firstLine(_ line: [UInt8]?, from source: String) throws(CommandFailure) -> Secret {
        guard let line else {
            throw usage(
                "no setup code in \(source): its first \(maximumLength) bytes hold no line break; "
                    + "expected XXX-XX-XXX on the first line")
        }
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }
        let trimmed = line.drop(while: blank).reversed().drop(while: blank).reversed()
        guard let text = String(validating: Array(trimmed), as: UTF8.self), !text.isEmpty
        else { throw usage("no setup code in \(source): expected XXX-XX-XXX on the first line") }
        return Secret(text)
    }

    /// The first line of standard input, as `readLine(from:)`; empty when it cannot be read (nothing
    /// typed is the same as nothing to read).
    private static func inputLine() -> [UInt8]? {
        do {
            return try readLine(from: STDIN_FILENO)
        } catch {
            return []
        }
    }

    /// `fd` up to the first line break or the end of input, one byte at a time so that nothing past the
    /// line is taken from a pipe; nil when `maximumLength` bytes hold no line break (nothing more is read).
    /// - Throws: `SystemCallError` when a read fails (`Is a directory`).
    private static func readLine(from fd: Int32) throws(SystemCallError) -> [UInt8]? {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = try SystemCall.retryingInterrupts("read") { readInput(fd, &byte, 1) }
            guard count == 1, byte != UInt8(ascii: "\n") else { return line }
            guard line.count < maximumLength else { return nil }
            line.append(byte)
        }
    }

    /// Shows `prompt` on standard error and reads a line from the terminal with echo off; echo is put
    /// back before returning.
    private static func readWithoutEcho(prompt: String) -> [UInt8]? {
        var saved = termios()
        let canSilence = tcgetattr(STDIN_FILENO, &saved) == 0
        if canSilence {
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO)
            // Echo goes off before the prompt shows: a code typed after the prompt is never echoed, and
            // never discarded by this change.
            _ = tcsetattr(STDIN_FILENO, TCSANOW, &silent)
        }
        defer {
            if canSilence { _ = tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
            StandardStream.write("\n", to: STDERR_FILENO)
        }
        StandardStream.write(prompt, to: STDERR_FILENO)
        return inputLine()
    }
}

#if canImport(Glibc)
    private let readInput = Glibc.read
#else
    private let readInput = Darwin.read
#endif
