import JSON
import Logging

/// The options every command takes, before or after the command's name.
struct GlobalOptions: Sendable, Hashable {
    /// `--config PATH`: the configuration file; nil means `Configuration.defaultPath`.
    var configPath: String?
    /// `--log-level LEVEL`: overrides the configuration's `log_level`.
    var logLevel: LogLevel?

    init(configPath: String? = nil, logLevel: LogLevel? = nil) {
        self.configPath = configPath
        self.logLevel = logLevel
    }

    /// The options with values, as help lists them.
    static let options = [
        OptionSpec("config", "PATH", "The configuration file (default: \(Configuration.defaultPath))."),
        OptionSpec("log-level", "LEVEL", "trace, debug, info, notice, warning or error; overrides log_level."),
    ]

    /// The flags, as help lists them.
    static let flags = [
        OptionSpec("version", nil, "Print the version and the commit built from, and exit."),
        OptionSpec("help", nil, "Show help; hap2mqtt <command> --help shows a command's."),
    ]

    /// Sets the option `name` (without dashes) when it is a global option.
    /// - Returns: false when `name` is not a global option.
    /// - Throws: `CommandLineError` for a repeated option or a bad value.
    mutating func set(_ name: String, to value: String, command: String?) throws(CommandLineError) -> Bool {
        switch name {
        case "config":
            guard configPath == nil else { throw .repeatedOption("--config", command: command) }
            guard !value.isEmpty else {
                throw .invalidValue(option: "--config", problem: "must not be empty", command: command)
            }
            configPath = value
        case "log-level":
            guard logLevel == nil else { throw .repeatedOption("--log-level", command: command) }
            guard let level = LogLevel(name: value) else {
                let names = LogLevel.allCases.map(\.description).joined(separator: ", ")
                let problem = "expected one of \(names), got \(value.jsonQuoted)"
                throw .invalidValue(option: "--log-level", problem: problem, command: command)
            }
            logLevel = level
        default:
            return false
        }
        return true
    }
}
