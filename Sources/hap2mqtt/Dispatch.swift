#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs the command of `context` with the program's `loggers` and returns the exit status. Logging is
/// set up before it is called.
///
/// `pair`, `unpair`, `accessories` and `discover` print their result on standard output and each failure
/// as one line `hap2mqtt: …` on standard error, with status 1 (2 for a setup code that is not 8 digits).
/// `healthcheck` prints its verdict on standard output, with status 0 or 1. `run` is the gateway
/// (`RunCommandRunner`).
func dispatch(_ context: CommandContext, loggers: Loggers) async -> Int32 {
    switch context.command {
    case .pair(let command):
        return finish(
            await result { () async throws(CommandFailure) in try await command.run(context, loggers: loggers) })
    case .unpair(let command):
        return finish(
            await result { () async throws(CommandFailure) in try await command.run(context, loggers: loggers) })
    case .accessories(let command):
        let (output, failures) = await command.run(context, loggers: loggers)
        StandardStream.write(output, to: STDOUT_FILENO)
        for failure in failures { StandardStream.write("hap2mqtt: \(failure)\n", to: STDERR_FILENO) }
        return failures.isEmpty ? 0 : CommandFailure.failureStatus
    case .healthcheck(let command):
        let (status, line) = command.run(context)
        StandardStream.write(line, to: STDOUT_FILENO)
        return status
    case .run:
        return await RunCommandRunner.run(context, loggers: loggers)
    case .discover(let command):
        return finish(
            await result { () async throws(CommandFailure) in try await command.run(context, loggers: loggers) })
    case .backup(let command):
        return finish(await result { () async throws(CommandFailure) in try command.run(context) })
    case .restore(let command):
        return finish(await result { () async throws(CommandFailure) in try command.run(context) })
    case .export(let command):
        return finish(await result { () async throws(CommandFailure) in try command.run(context) })
    case .import(let command):
        do {
            let (output, failures) = try await command.run(context, loggers: loggers)
            StandardStream.write(output, to: STDOUT_FILENO)
            for failure in failures { StandardStream.write("hap2mqtt: \(failure)\n", to: STDERR_FILENO) }
            return failures.isEmpty ? 0 : CommandFailure.failureStatus
        } catch {
            return finish(.failure(error))
        }
    }
}

/// The outcome of a command that prints one result or fails with one line.
private func result(_ body: () async throws(CommandFailure) -> String) async -> Result<String, CommandFailure> {
    do {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}

/// Prints the result on standard output, or the failure on standard error; the exit status.
private func finish(_ outcome: Result<String, CommandFailure>) -> Int32 {
    switch outcome {
    case .success(let output):
        StandardStream.write(output, to: STDOUT_FILENO)
        return 0
    case .failure(let failure):
        StandardStream.write("hap2mqtt: \(failure)\n", to: STDERR_FILENO)
        return failure.status
    }
}
