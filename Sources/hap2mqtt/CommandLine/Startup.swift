/// What the program does with its arguments and environment, decided without side effects so tests
/// can check every path `main` takes: print something and exit, or run a command.
enum Startup: Sendable, Hashable {
    /// Exit with `status` after writing `output` to standard output and `error` to standard error:
    /// `--version` and `--help` (status 0), a usage or configuration error (status 2, one line
    /// starting `hap2mqtt: `).
    case finish(status: Int32, output: String, error: String)
    /// Set up logging and run the command.
    case command(CommandContext)

    /// The exit status for errors in the command line or the configuration.
    static let usageErrorStatus: Int32 = 2

    /// Parses `arguments` (without the program's name) and loads the configuration with `environment`.
    /// `defaultConfigurationPath` is `Configuration.defaultPath` except in tests.
    static func decide(
        arguments: [String], environment: [String: String],
        defaultConfigurationPath: String = Configuration.defaultPath
    ) -> Startup {
        let invocation: Invocation
        do throws(CommandLineError) {
            invocation = try CommandLineParser.parse(arguments)
        } catch {
            return .finish(status: usageErrorStatus, output: "", error: "hap2mqtt: \(error)\n")
        }
        switch invocation.action {
        case .version:
            return .finish(status: 0, output: Hap2mqtt.versionLine, error: "")
        case .help(let command):
            return .finish(status: 0, output: HelpText.forCommand(named: command), error: "")
        case .command(let command):
            do throws(ConfigurationError) {
                let loaded = try Configuration.load(
                    path: invocation.options.configPath, environment: environment,
                    defaultPath: defaultConfigurationPath)
                let logLevel = invocation.options.logLevel ?? loaded.configuration.logLevel
                // The defaults are meant (a first try, the demo), but a file in the wrong place would be
                // ignored without a word. discover reads only the state directory, so there it is no news.
                let notices =
                    loaded.file == nil && command.usesConfiguration
                    ? [
                        "no configuration file at \(defaultConfigurationPath); using the defaults (see \(Configuration.examplePath))"
                    ]
                    : []
                return .command(
                    CommandContext(
                        command: command, options: invocation.options, configuration: loaded.configuration,
                        configurationFile: loaded.file, logLevel: logLevel, warnings: loaded.warnings, notices: notices)
                )
            } catch {
                return .finish(status: usageErrorStatus, output: "", error: "hap2mqtt: \(error)\n")
            }
        }
    }
}
