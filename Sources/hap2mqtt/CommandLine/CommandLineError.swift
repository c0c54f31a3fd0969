import JSON

/// The command line could not be understood. Prints as one line that ends by pointing at the help
/// of the command concerned (`unknown option --prot for pair; see hap2mqtt pair --help`); the program
/// prints it after `hap2mqtt: ` and exits with status 2. Setup codes are never repeated.
enum CommandLineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No command was given.
    case missingCommand
    /// The first argument that is not an option is not a command.
    case unknownCommand(String)
    /// An option neither the command nor the global options have.
    case unknownOption(String, command: String?)
    /// An option that takes a value was given none.
    case missingValue(option: String, command: String?)
    /// A flag (`--help`, `--version`) was given a value with `=`.
    case unexpectedValue(option: String, command: String?)
    /// An option was given twice.
    case repeatedOption(String, command: String?)
    /// More arguments than the command takes.
    case unexpectedArgument(String, command: String?)
    /// A required option is missing.
    case missingOption(String, command: String)
    /// A required argument is missing; `name` is its name in the usage line (`NAME|ID`).
    case missingArgument(String, command: String)
    /// An option's or argument's value is not allowed; `problem` says why.
    case invalidValue(option: String, problem: String, command: String?)

    var description: String {
        switch self {
        case .missingCommand:
            return "missing command" + Self.seeHelp(nil)
        case .unknownCommand(let name):
            return "unknown command \(name.jsonQuoted)" + Self.seeHelp(nil)
        case .unknownOption(let option, let command):
            return "unknown option \(option)" + Self.forCommand(command) + Self.seeHelp(command)
        case .missingValue(let option, let command):
            return "missing value for \(option)" + Self.seeHelp(command)
        case .unexpectedValue(let option, let command):
            return "\(option) takes no value" + Self.seeHelp(command)
        case .repeatedOption(let option, let command):
            return "\(option) given twice" + Self.seeHelp(command)
        case .unexpectedArgument(let argument, let command):
            return "unexpected argument \(argument.jsonQuoted)" + Self.forCommand(command) + Self.seeHelp(command)
        case .missingOption(let option, let command):
            return "missing \(option) for \(command)" + Self.seeHelp(command)
        case .missingArgument(let name, let command):
            return "missing \(name) for \(command)" + Self.seeHelp(command)
        case .invalidValue(let option, let problem, let command):
            return "\(option): \(problem)" + Self.seeHelp(command)
        }
    }

    private static func forCommand(_ command: String?) -> String { command.map { " for \($0)" } ?? "" }

    private static func seeHelp(_ command: String?) -> String {
        "; see hap2mqtt " + (command.map { "\($0) " } ?? "") + "--help"
    }
}
