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
                line = try SecretLine.read(from: fd, maximumLength: maximumLength)
            } catch {
                throw usage("--code-file: cannot read \(path): \(error.reason)")
            }
            return try firstLine(line, from: input.label)
        case .standardInput:
            return try firstLine(
                SecretLine.standardInput(maximumLength: maximumLength), from: "standard input (--code -)")
        case .prompt:
            guard SecretLine.canPrompt else {
                throw usage(
                    "no setup code: give --code-file PATH or --code - (standard input), or run pair in a terminal to type it"
                )
            }
            return try firstLine(
                SecretLine.readWithoutEcho(
                    prompt: "Setup code (XXX-XX-XXX, not shown): ", maximumLength: maximumLength),
                from: "the terminal")
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
}
