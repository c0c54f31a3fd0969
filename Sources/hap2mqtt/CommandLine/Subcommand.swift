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

    /// Checks the values together and against their ranges.
    /// - Throws: `CommandLineError.invalidValue`.
    func validate() throws(CommandLineError)
}

extension Subcommand {
    static var discussion: String { "" }
    static var options: [OptionSpec] { [] }
    static var arguments: [ArgumentSpec] { [] }
    func validate() throws(CommandLineError) {}

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

/// A command with its values, ready to run.
enum Command: Sendable, Hashable {
    case run(RunCommand)
    case pair(PairCommand)
    case unpair(UnpairCommand)
    case accessories(AccessoriesCommand)
    case healthcheck(HealthcheckCommand)
    case discover(DiscoverCommand)
    case backup(BackupCommand)
    case restore(RestoreCommand)
    case export(ExportCommand)
    case `import`(ImportCommand)

    /// Every command, in the order help lists them.
    static let all: [any Subcommand.Type] = [
        RunCommand.self, PairCommand.self, UnpairCommand.self, AccessoriesCommand.self, HealthcheckCommand.self,
        DiscoverCommand.self, BackupCommand.self, RestoreCommand.self, ImportCommand.self, ExportCommand.self,
    ]

    /// The command type named `name`.
    static func type(named name: String) -> (any Subcommand.Type)? { all.first { $0.name == name } }

    /// Reads and validates the command `arguments.command`.
    /// - Throws: `CommandLineError.unknownCommand`, or what the command's `parse` throws.
    static func parse(_ arguments: ParsedArguments) throws(CommandLineError) -> Command {
        switch arguments.command {
        case RunCommand.name: return .run(try RunCommand.parse(arguments))
        case PairCommand.name: return .pair(try PairCommand.parse(arguments))
        case UnpairCommand.name: return .unpair(try UnpairCommand.parse(arguments))
        case AccessoriesCommand.name: return .accessories(try AccessoriesCommand.parse(arguments))
        case HealthcheckCommand.name: return .healthcheck(try HealthcheckCommand.parse(arguments))
        case DiscoverCommand.name: return .discover(try DiscoverCommand.parse(arguments))
        case BackupCommand.name: return .backup(try BackupCommand.parse(arguments))
        case RestoreCommand.name: return .restore(try RestoreCommand.parse(arguments))
        case ExportCommand.name: return .export(try ExportCommand.parse(arguments))
        case ImportCommand.name: return .import(try ImportCommand.parse(arguments))
        default: throw .unknownCommand(arguments.command)
        }
    }

    /// The command's name.
    var name: String {
        switch self {
        case .run: return RunCommand.name
        case .pair: return PairCommand.name
        case .unpair: return UnpairCommand.name
        case .accessories: return AccessoriesCommand.name
        case .healthcheck: return HealthcheckCommand.name
        case .discover: return DiscoverCommand.name
        case .backup: return BackupCommand.name
        case .restore: return RestoreCommand.name
        case .export: return ExportCommand.name
        case .import: return ImportCommand.name
        }
    }
}

extension Command {
    /// Whether the command depends on the configuration enough that running on the defaults is news:
    /// `discover` reads only the state directory, to say which accessories are paired here.
    var usesConfiguration: Bool {
        if case .discover = self { return false }
        return true
    }
}
