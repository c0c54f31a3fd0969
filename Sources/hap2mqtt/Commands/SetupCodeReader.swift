import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads the setup code of `hap2mqtt pair` from where `SetupCodeInput` says: a file, standard input, or
/// the terminal with echo off, so that it never shows in `ps`, in a terminal's scroll-back or in a log.
enum SetupCodeReader {
    /// The longest line read; a setup code is 10 characters, so anything longer is not one.
    static let maximumLength = 256

    /// The code's text, without surrounding spaces and line breaks.
    /// - Throws: `CommandFailure` (status 2) when the file cannot be read, standard input ends without a
    ///   line, or no code option was given and standard input is not a terminal.
    static func read(_ input: SetupCodeInput) throws(CommandFailure) -> Secret {
        switch input {
        case .argument(let secret):
            return secret
        case .file(let path):
            switch FileBytes.read(path) {
            case .failure(let reason): throw usage("--code-file: cannot read \(path): \(reason)")
            case .success(let bytes): return try firstLine(bytes, from: input.label)
            }
        case .standardInput:
            return try firstLine(readLine(), from: "standard input (--code -)")
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

    private static func firstLine(_ bytes: [UInt8], from source: String) throws(CommandFailure) -> Secret {
        let line = bytes.prefix { $0 != UInt8(ascii: "\n") }.prefix(maximumLength)
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }
        let trimmed = line.drop(while: blank).reversed().drop(while: blank).reversed()
        guard let text = String(validating: Array(trimmed), as: UTF8.self), !text.isEmpty
        else { throw usage("no setup code in \(source): expected XXX-XX-XXX on the first line") }
        return Secret(text)
    }

    /// Standard input up to the first line break, end of input, or `maximumLength` bytes.
    private static func readLine() -> [UInt8] {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while line.count < maximumLength {
            let count = (try? SystemCall.retryingInterrupts("read") { readInput(STDIN_FILENO, &byte, 1) }) ?? 0
            guard count == 1, byte != UInt8(ascii: "\n") else { break }
            line.append(byte)
        }
        return line
    }

    /// Shows `prompt` on standard error and reads a line from the terminal with echo off; echo is put
    /// back before returning.
    private static func readWithoutEcho(prompt: String) -> [UInt8] {
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
        return readLine()
    }
}

#if canImport(Glibc)
    private let readInput = Glibc.read
#else
    private let readInput = Darwin.read
#endif
