import Gateway
import HAPController
import HomeStore
import JSON
import SystemSupport

extension PairCommand {
    /// Pairs with the accessory through `Management.pair` (the operation the MQTT bridge API and the web
    /// page call too) and saves the pairing in the configured state directory; prints what was paired on
    /// standard output, and when it replaced an old pairing with the same accessory (which had been
    /// reset). The setup code is never printed or logged.
    ///
    /// With `--id`, the accessory's announcement gives the address, the port and the pair-setup method
    /// (`ff`); one that says it is paired (`sf`) is refused before pair-setup, as pair-setup would be
    /// (`HAPAccessoryPairing`).
    /// - Throws: `CommandFailure`: status 2 for a code that cannot be read or is not 8 digits, 1 when
    ///   pairing fails or the accessory is not announced.
    func run(_ context: CommandContext, loggers: Loggers) async throws(CommandFailure) -> String {
        let text = try SetupCodeReader.read(code)
        let management = Management.commandLine(context, loggers: loggers)
        let request = PairRequest(id: id, host: host, port: port, code: EnteredSetupCode(text.reveal), name: name)
        let paired: PairedServer
        do {
            paired = try await management.pair(request)
        } catch .invalidSetupCode {
            throw CommandFailure(
                message: "\(code.label): \(ManagementError.invalidSetupCode); see hap2mqtt pair --help",
                status: Startup.usageErrorStatus)
        } catch {
            throw CommandFailure(error)
        }
        let what: String
        if paired.replaced {
            let oldName = paired.replacedName.map { $0 == paired.name ? "" : " \($0.jsonQuoted)" } ?? ""
            what = " again (replacing the old pairing\(oldName) of accessory id \(paired.id))"
        } else {
            what = " (accessory id \(paired.id))"
        }
        return "paired with \(paired.name.jsonQuoted)\(what) at \(HAPEndpoint(host: paired.host, port: paired.port)); "
            + "hap2mqtt accessories lists it\n"
    }
}

extension Management {
    /// The operations for one command of the command line: the HAP controller of the configured state
    /// directory, browsing only while a pair by `--id` waits for the announcement, and no running gateway.
    static func commandLine(_ context: CommandContext, loggers: Loggers) -> Management {
        let controller = HAPController(
            stateDirectory: StateDirectory(path: context.configuration.homekit.stateDirectory), logger: loggers.hap)
        return Management(
            pairing: HAPAccessoryPairing(controller: controller, discoveryLogger: loggers.discovery),
            logger: loggers.program)
    }
}

extension PairCommand {
    /// Prints the result, or the failure as one line (`CommandOutput.finish`).
    func execute(_ context: CommandContext, loggers: Loggers) async -> Int32 {
        await CommandOutput.finish { () async throws(CommandFailure) in try await run(context, loggers: loggers) }
    }
}
