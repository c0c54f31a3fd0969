/// Where `hap2mqtt pair` takes the setup code from. Only `--code XXX-XX-XXX` puts it on the command
/// line, where `ps` and the shell's history show it to everyone on the machine; the others keep it out
/// (docs/command-line.md "Pairing").
enum SetupCodeInput: Sendable, Hashable {
    /// `--code XXX-XX-XXX`: given on the command line.
    case argument(Secret)
    /// `--code-file PATH`: the file's first line.
    case file(String)
    /// `--code -`: the first line of standard input.
    case standardInput
    /// Neither option: asked for on the terminal, without echo; refused when standard input is not a
    /// terminal.
    case prompt

    /// How error messages name the source: `--code`, `--code-file PATH`, `--code -`, `the code typed`.
    var label: String {
        switch self {
        case .argument: return "--code"
        case .file(let path): return "--code-file \(path)"
        case .standardInput: return "--code -"
        case .prompt: return "the code typed"
        }
    }
}
