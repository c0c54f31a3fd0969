/// Where `backup` and `restore` take the archive's passphrase from: never the command line, where `ps`
/// and the shell's history would show it to everyone on the machine (docs/backup.md).
enum PassphraseInput: Sendable, Hashable {
    /// `--passphrase-file PATH`: the file's first line.
    case file(String)
    /// `--passphrase-file -`: the first line of standard input.
    case standardInput
    /// No option: asked for on the terminal, without echo; refused when standard input is not a terminal.
    case prompt

    /// The option, for a command's `options`.
    static let option = OptionSpec(
        "passphrase-file", "PATH",
        "Read the passphrase from the first line of this file; '-' reads standard input (without it, it is asked for).")

    /// The input `--passphrase-file` names, if given.
    init(_ arguments: ParsedArguments) {
        switch arguments.options[Self.option.name] {
        case "-": self = .standardInput
        case .some(let path): self = .file(path)
        case nil: self = .prompt
        }
    }
}
