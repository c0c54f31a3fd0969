import HAPController
import HomeStore

extension PairCommand {
    /// Pairs with the accessory and saves the pairing in the configured state directory; prints what was
    /// paired on standard output. The setup code is never printed or logged.
    /// - Throws: `CommandFailure`: status 2 for a code that is not 8 digits, 1 when pairing fails.
    func run(_ context: CommandContext) async throws(CommandFailure) -> String {
        let setupCode: SetupCode
        do {
            setupCode = try SetupCode(code.reveal)
        } catch {
            throw CommandFailure(message: "--code: \(error); see hap2mqtt pair --help", status: Startup.usageErrorStatus)
        }
        let controller = HAPController(stateDirectory: StateDirectory(path: context.configuration.homekit.stateDirectory))
        do {
            let pairing = try await controller.pair(host: host, port: UInt16(port), setupCode: setupCode, name: name)
            return "paired with \(pairing.displayName.jsonQuoted) (accessory id \(pairing.accessoryPairingID)) at "
                + "\(pairing.host):\(pairing.port); hap2mqtt accessories lists it\n"
        } catch {
            throw CommandFailure(error)
        }
    }
}
