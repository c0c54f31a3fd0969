import HAPController

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads the passphrase of a backup from where `PassphraseInput` says, as bytes: the first line, without
/// its line break (spaces are part of it). It never shows on the terminal, on the command line or in a log.
enum PassphraseReader {
    /// The longest passphrase; nothing past it is read.
    static let maximumLength = 1024
    /// The shortest passphrase a new backup takes: the archive may be stored anywhere, and only the
    /// passphrase protects the controller's keys in it.
    static let minimumLength = 8

    /// The passphrase. `confirm`: on the terminal, asked twice (for a new backup).
    /// - Throws: `CommandFailure` (status 2) when the file cannot be read, the line is too long or empty,
    ///   the two typed differ, or nothing says where it comes from and standard input is not a terminal.
    static func read(_ input: PassphraseInput, confirm: Bool) throws(CommandFailure) -> [UInt8] {
        switch input {
        case .file(let path):
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw usage("--passphrase-file: cannot read \(path): \(String(cString: strerror(errno)))")
            }
            defer { close(fd) }
            let line: [UInt8]?
            do {
                line = try SecretLine.read(from: fd, maximumLength: maximumLength)
            } catch {
                throw usage("--passphrase-file: cannot read \(path): \(error.reason)")
            }
            return try firstLine(line, from: path)
        case .standardInput:
            return try firstLine(SecretLine.standardInput(maximumLength: maximumLength), from: "standard input")
        case .prompt:
            guard SecretLine.canPrompt else {
                throw usage(
                    "no passphrase: give --passphrase-file PATH (or - for standard input), or run in a terminal")
            }
            let first = try firstLine(
                SecretLine.readWithoutEcho(prompt: "Passphrase (not shown): ", maximumLength: maximumLength),
                from: "the terminal")
            guard confirm else { return first }
            let second = try firstLine(
                SecretLine.readWithoutEcho(prompt: "The same passphrase again: ", maximumLength: maximumLength),
                from: "the terminal")
            guard first == second else { throw usage("the two passphrases typed differ; nothing was written") }
            return first
        }
    }

    /// Refuses a passphrase too short for a new backup.
    static func checkStrength(_ passphrase: [UInt8]) throws(CommandFailure) {
        guard passphrase.count >= minimumLength else {
            throw usage(BackupError.weakPassphrase(reason: "has fewer than \(minimumLength) characters").description)
        }
    }

    private static func usage(_ message: String) -> CommandFailure {
        CommandFailure(message: message, status: Startup.usageErrorStatus)
    }

    /// The passphrase on `line`: nil when no line ended within `maximumLength`.
    private static func firstLine(_ line: [UInt8]?, from source: String) throws(CommandFailure) -> [UInt8] {
        guard var line else {
            throw usage("no passphrase in \(source): its first \(maximumLength) bytes hold no line break")
        }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        guard !line.isEmpty else { throw usage("no passphrase in \(source): its first line is empty") }
        return line
    }
}
