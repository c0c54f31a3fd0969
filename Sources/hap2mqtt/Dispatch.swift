#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs the command of `context` with the program's `loggers` and returns the exit status. Logging is
/// set up before it is called. Each command says how it runs in its `execute` (`Commands/*+Run.swift`).
///
/// `pair`, `unpair`, `accessories` and `discover` print their result on standard output and each failure
/// as one line `hap2mqtt: …` on standard error, with status 1 (2 for a setup code that is not 8 digits).
/// `healthcheck` prints its verdict on standard output, with status 0 or 1. `run` is the gateway
/// (`RunCommandRunner`).
func dispatch(_ context: CommandContext, loggers: Loggers) async -> Int32 {
    await context.command.subcommand.execute(context, loggers: loggers)
}

/// The ways a command prints its outcome, shared by the commands' `execute`.
enum CommandOutput {
    /// Runs `body` and prints its result on standard output, or its failure as one line on standard
    /// error; the exit status (0, or the failure's).
    static func finish(_ body: () async throws(CommandFailure) -> String) async -> Int32 {
        do {
            let output = try await body()
            StandardStream.write(output, to: STDOUT_FILENO)
            return 0
        } catch {
            StandardStream.write("hap2mqtt: \(error)\n", to: STDERR_FILENO)
            return error.status
        }
    }
}
