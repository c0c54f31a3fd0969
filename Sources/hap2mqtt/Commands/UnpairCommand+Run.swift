import HAPController
import JSON
import SystemSupport

extension UnpairCommand {
    /// Removes the pairing on the accessory and from the state directory (see `HAPController.unpair`);
    /// returns what was done, for standard output.
    /// - Throws: `CommandFailure` when the pairing is unknown, or the accessory could not remove it and
    ///   `--force` was not given (the pairing is then kept).
    func run(_ context: CommandContext, loggers: Loggers) async throws(CommandFailure) -> String {
        let controller = HAPController(
            stateDirectory: StateDirectory(path: context.configuration.homekit.stateDirectory), logger: loggers.hap)
        do {
            let name = try await controller.pairing(named: pairing).displayName.jsonQuoted
            switch try await controller.unpair(pairing, force: force) {
            case .removed:
                return "unpaired \(name): the accessory and the state directory no longer hold the pairing\n"
            case .alreadyRemovedOnAccessory:
                return "unpaired \(name): the accessory had already forgotten this controller; the pairing was deleted here\n"
            case .removedLocallyOnly(let reason):
                return "forgot \(name) here only (\(reason)); reset the accessory before pairing it again\n"
            }
        } catch {
            throw CommandFailure(error)
        }
    }
}
