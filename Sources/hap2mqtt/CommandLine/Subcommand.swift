/// One command of `hap2mqtt` (the shape of swift-argument-parser's `ParsableCommand`): its name and
/// help, the options and arguments it takes, how its values are read from the parsed arguments, and
/// the checks of `validate()`, which run before anything is done.
protocol Subcommand: Sendable, Hashable {
    /// The word that selects the command (`pair`).
    static var name: String { get }
    /// One line: what the command does.
    static var abstract: String { get }
    /// More help after the abstract; empty for none.
    static var discussion: String { get }
    /// The command's own options.
    static var options: [OptionSpec] { get }
    /// The command's positional arguments, all required.
    static var arguments: [ArgumentSpec] { get }

    /// Reads the command's values, converting types.
    /// - Throws: `CommandLineError` for a missing required option or argument, or a value of the
    ///   wrong type.
    init(_ arguments: ParsedArguments) throws(CommandLineError)

    /// Whether the command depends on the configuration enough that running on the defaults is news
    /// (`Startup`); true unless a command says otherwise.
    static var usesConfiguration: Bool { get }

    /// Checks the values together and against their ranges.
    /// - Throws: `CommandLineError.invalidValue`.
    func validate() throws(CommandLineError)

    /// Runs the command with the program's `loggers` and returns the exit status (`Dispatch.swift` has the
    /// shared ways of printing a result). Logging is set up before it is called.
    func execute(_ context: CommandContext, loggers: Loggers) async -> Int32
}

extension Subcommand {
    static var discussion: String { "" }
    static var options: [OptionSpec] { [] }
    static var arguments: [ArgumentSpec] { [] }
    static var usesConfiguration: Bool { true }
    func validate() throws(CommandLineError) {}

    /// The first positional argument, which the command requires (`NAME|ID`).
    /// - Throws: `CommandLineError.missingArgument` naming the command's first argument.
    static func firstArgument(_ arguments: ParsedArguments) throws(CommandLineError) -> String {
        guard let first = arguments.positionals.first else {
            throw .missingArgument(self.arguments[0].name, command: name)
        }
        return first
    }

    /// The error for a value of `option` that is not allowed, for `validate()`.
    static func invalid(_ option: String, _ problem: String) -> CommandLineError {
        .invalidValue(option: option, problem: problem, command: name)
    }

    /// Reads and validates the command, after refusing positional arguments it does not take.
    static func parse(_ arguments: ParsedArguments) throws(CommandLineError) -> Self {
        if arguments.positionals.count > self.arguments.count {
            throw .unexpectedArgument(arguments.positionals[self.arguments.count], command: name)
        }
        if let missing = self.arguments.dropFirst(arguments.positionals.count).first {
            throw .missingArgument(missing.name, command: name)
        }
        let command = try Self(arguments)
        try command.validate()
        return command
    }
}

/// A command with its values, ready to run: one of `Command.all`, parsed and validated.
struct Command: Sendable, Hashable {
    /// The command's values.
    let subcommand: any Subcommand

    /// `subcommand`, ready to run.
    init(_ subcommand: some Subcommand) {
        self.subcommand = subcommand
    }

    /// Every command, in the order help lists them: the one registry that parsing, help and dispatch read.
    static let all: [any Subcommand.Type] = [
        RunCommand.self, PairCommand.self, UnpairCommand.self, PairingsCommand.self, AccessoriesCommand.self,
        HealthcheckCommand.self,
        DiscoverCommand.self, BackupCommand.self, RestoreCommand.self, ImportCommand.self, ExportCommand.self,
    ]

    /// The command type named `name`.
    static func type(named name: String) -> (any Subcommand.Type)? { all.first { $0.name == name } }

    /// Reads and validates the command `arguments.command`.
    /// - Throws: `CommandLineError.unknownCommand`, or what the command's `parse` throws.
    static func parse(_ arguments: ParsedArguments) throws(CommandLineError) -> Command {
        guard let type = type(named: arguments.command) else { throw .unknownCommand(arguments.command) }
        return Command(try type.parse(arguments))
    }

    /// The command's name.
    var name: String { Swift.type(of: subcommand).name }

    /// Whether the command depends on the configuration enough that running on the defaults is news.
    var usesConfiguration: Bool { Swift.type(of: subcommand).usesConfiguration }

    /// The command's values when it is a `type` command.
    func `as`<T: Subcommand>(_ type: T.Type) -> T? { subcommand as? T }

    static func == (lhs: Command, rhs: Command) -> Bool { AnyHashable(lhs.subcommand) == AnyHashable(rhs.subcommand) }

    func hash(into hasher: inout Hasher) { AnyHashable(subcommand).hash(into: &hasher) }
}
