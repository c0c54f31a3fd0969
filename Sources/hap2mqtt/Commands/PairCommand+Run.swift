import HAPController
import SystemSupport

extension PairCommand {
    /// Pairs with the accessory and saves the pairing in the configured state directory; prints what was
    /// paired on standard output, and when it replaced an old pairing with the same accessory (which had
    /// been reset). The setup code is never printed or logged.
    /// - Throws: `CommandFailure`: status 2 for a code that cannot be read or is not 8 digits, 1 when
    ///   pairing fails.
    func run(_ context: CommandContext, loggers: Loggers) async throws(CommandFailure) -> String {
        let text = try SetupCodeReader.read(code)
        let setupCode: SetupCode
        do {
            setupCode = try SetupCode(text.reveal)
        } catch {
            throw CommandFailure(message: "\(code.label): \(error); see hap2mqtt pair --help", status: Startup.usageErrorStatus)
        }
        let controller = HAPController(
            stateDirectory: StateDirectory(path: context.configuration.homekit.stateDirectory), logger: loggers.hap)
        do {
            let outcome = try await controller.pairSetup(host: host, port: UInt16(port), setupCode: setupCode, name: name)
            let pairing = outcome.pairing
            let what: String
            if let old = outcome.replaced {
                let oldName = old.name.map { $0 == pairing.name ? "" : " \($0.jsonQuoted)" } ?? ""
                what = " again (replacing the old pairing\(oldName) of accessory id \(old.accessoryPairingID))"
            } else {
                what = " (accessory id \(pairing.accessoryPairingID))"
            }
            return "paired with \(pairing.displayName.jsonQuoted)\(what) at \(pairing.host):\(pairing.port); "
                + "hap2mqtt accessories lists it\n"
        } catch {
            throw CommandFailure(error)
        }
    }
}
