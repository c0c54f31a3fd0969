import Gateway
import HomeStore
import JSON

extension PairingsCommand {
    /// Lists, adds or removes through `Management` (the operations `bridge/request/list_pairings`,
    /// `add_pairing` and `remove_pairing` call too); returns the pairings the accessory then lists, one
    /// line each, for standard output.
    /// - Throws: `CommandFailure` with the accessory's answer or why nothing was sent.
    func run(_ context: CommandContext, loggers: Loggers) async throws(CommandFailure) -> String {
        let management = Management.commandLine(context, loggers: loggers)
        let pairings: ControllerPairings
        do {
            switch change {
            case .none: pairings = try await management.controllerPairings(of: pairing)
            case .add(let controller): pairings = try await management.addControllerPairing(controller, to: pairing)
            case .remove(let id): pairings = try await management.removeControllerPairing(id, from: pairing)
            }
        } catch {
            throw CommandFailure(error)
        }
        var text: String
        switch change {
        case .none: text = ""
        case .add(let controller): text = "added \(controller.id.jsonQuoted)\n"
        case .remove(let id): text = "removed \(id.jsonQuoted)\n"
        }
        text += "\(pairings.name.jsonQuoted) (\(pairings.id)) has \(pairings.pairings.count) controller pairing(s):\n"
        for controller in pairings.pairings {
            let own = controller.id.lowercased() == pairings.ownID.lowercased() ? "  (this gateway)" : ""
            text +=
                "  \(controller.id)  \(controller.admin ? "admin" : "user ")  \(controller.publicKeyHex)\(own)\n"
        }
        return text
    }
}

extension PairingsCommand {
    /// Prints the result, or the failure as one line (`CommandOutput.finish`).
    func execute(_ context: CommandContext, loggers: Loggers) async -> Int32 {
        await CommandOutput.finish { () async throws(CommandFailure) in try await run(context, loggers: loggers) }
    }
}
