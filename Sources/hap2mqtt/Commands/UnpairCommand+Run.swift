import Gateway
import HomeStore
import JSON

extension UnpairCommand {
    /// Removes the pairing on the accessory and from the state directory through `Management.unpair`
    /// (the operation the MQTT bridge API and the web page call too); returns what was done, for
    /// standard output.
    /// - Throws: `CommandFailure` when the pairing is unknown, or the accessory could not remove it and
    ///   `--force` was not given (the pairing is then kept).
    func run(_ context: CommandContext, loggers: Loggers) async throws(CommandFailure) -> String {
        let result: UnpairResult
        do {
            result = try await Management.commandLine(context, loggers: loggers).unpair(pairing, force: force)
        } catch {
            throw CommandFailure(error)
        }
        let name = result.name.jsonQuoted
        switch result.outcome {
        case .removed:
            return "unpaired \(name): the accessory and the state directory no longer hold the pairing\n"
        case .alreadyRemovedOnAccessory:
            return
                "unpaired \(name): the accessory had already forgotten this controller; the pairing was deleted here\n"
        case .removedLocallyOnly(let reason):
            return "forgot \(name) here only (\(reason)); reset the accessory before pairing it again\n"
        }
    }
}

extension UnpairCommand {
    /// Prints the result, or the failure as one line (`CommandOutput.finish`).
    func execute(_ context: CommandContext, loggers: Loggers) async -> Int32 {
        await CommandOutput.finish { () async throws(CommandFailure) in try await run(context, loggers: loggers) }
    }
}
