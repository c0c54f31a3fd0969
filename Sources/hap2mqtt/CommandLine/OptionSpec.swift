/// An option as help shows it: `--host H`, with one line of help.
struct OptionSpec: Sendable, Hashable {
    /// The name without dashes (`host`).
    var name: String
    /// The value's placeholder (`H`); nil for a flag.
    var valueName: String?
    /// One line of help.
    var help: String
    /// True when the command cannot do without it (usage shows it without brackets).
    var isRequired: Bool

    init(_ name: String, _ valueName: String?, _ help: String, required: Bool = false) {
        self.name = name
        self.valueName = valueName
        self.help = help
        self.isRequired = required
    }

    /// `--host H`, or `--version` for a flag.
    var synopsis: String { "--\(name)" + (valueName.map { " \($0)" } ?? "") }

    /// The synopsis as a usage line shows it: in brackets when the option may be left out.
    var usage: String { isRequired ? synopsis : "[\(synopsis)]" }
}

/// A positional argument as help shows it: `NAME|ID`.
struct ArgumentSpec: Sendable, Hashable {
    var name: String
    var help: String

    init(_ name: String, _ help: String) {
        self.name = name
        self.help = help
    }
}

/// What the parser collected for one command before the command checks it: option values by name
/// and the positional arguments in order.
struct ParsedArguments: Sendable, Hashable {
    /// The command's name.
    var command: String
    /// Option values by name without dashes.
    var options: [String: String] = [:]
    /// Positional arguments after the command.
    var positionals: [String] = []

    /// The value of a required option.
    /// - Throws: `CommandLineError.missingOption` when it was not given.
    func required(_ option: String) throws(CommandLineError) -> String {
        guard let value = options[option] else { throw .missingOption("--\(option)", command: command) }
        return value
    }
}
