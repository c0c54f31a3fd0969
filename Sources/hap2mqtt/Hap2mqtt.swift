import Foundation
import Logging

/// The program's entry point: parses the command line, loads the configuration, sets up logging to
/// standard error and runs the command (`dispatch`). Usage and configuration errors print one line
/// starting `hap2mqtt: ` and exit with status 2.
@main
struct Hap2mqtt {
    /// The program's version, as `hap2mqtt --version` and `bridge/info` show it.
    static let version = "0.1.0"

    /// The git commit the binary was built from (12 hex digits, `-dirty` when it had uncommitted changes),
    /// or "unknown" when it was built outside git; written before every build by `Plugins/BuildCommit`.
    static let commit = buildCommit

    /// What `hap2mqtt --version` prints: `hap2mqtt 0.1.0 (commit 56a5888c1d2e)`.
    static var versionLine: String { "hap2mqtt \(version) (commit \(commit))\n" }

    static func main() async {
        MemoryTuning.apply()
        let startup = Startup.decide(
            arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
        switch startup {
        case .finish(let status, let output, let error):
            StandardStream.write(output, to: STDOUT_FILENO)
            StandardStream.write(error, to: STDERR_FILENO)
            exit(status)
        case .command(let context):
            LogSystem.bootstrap(
                LogLineWriter().sink(minimumLevel: context.logLevel, bridgeLevel: context.configuration.mqttLogLevel))
            let loggers = Loggers()
            for notice in context.notices { loggers.program.notice(notice) }
            for warning in context.warnings { loggers.program.warning(warning) }
            exit(await dispatch(context, loggers: loggers))
        }
    }
}
