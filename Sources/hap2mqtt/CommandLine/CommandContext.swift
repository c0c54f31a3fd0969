import Logging

/// Everything a command needs to run, decided before it starts: the command with its values, the
/// global options, the loaded configuration, and the log level in force.
struct CommandContext: Sendable, Hashable {
    /// The command and its values.
    var command: Command
    /// `--config` and `--log-level` as given.
    var options: GlobalOptions
    /// The settings from the file and the environment.
    var configuration: Configuration
    /// The configuration file that was read; nil when the default file is missing (defaults only).
    var configurationFile: String?
    /// `--log-level` when given, else the configuration's `log_level`.
    var logLevel: LogLevel
    /// Warnings to log once logging is set up (unknown `HAP2MQTT_*` variables).
    var warnings: [String]
    /// Notices to log once logging is set up (the default configuration file is missing).
    var notices: [String] = []
}
