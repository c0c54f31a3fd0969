import HAPController
import HomeModel
import JSON
import Logging
import SystemSupport

extension PairCommand {
    /// How long `--id` listens for the accessory's announcement.
    static let announcementTimeout: Duration = .seconds(10)

    /// Pairs with the accessory and saves the pairing in the configured state directory; prints what was
    /// paired on standard output, and when it replaced an old pairing with the same accessory (which had
    /// been reset). The setup code is never printed or logged.
    ///
    /// With `--id`, the accessory's announcement gives the address, the port and the pair-setup method
    /// (`ff`); one that says it is paired (`sf`) is refused before pair-setup, as pair-setup would be.
    /// - Throws: `CommandFailure`: status 2 for a code that cannot be read or is not 8 digits, 1 when
    ///   pairing fails or the accessory is not announced.
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
        var host = self.host
        var port = self.port
        var featureFlags = 0
        if let id, let announced = try await Self.announcement(of: id, required: host == nil || port == nil, logger: loggers.discovery) {
            if announced.isPaired {
                if let mine = await controller.pairings().first(where: { $0.accessoryPairingID.uppercased() == announced.id }) {
                    throw CommandFailure(HAPControllerError.alreadyPairedHere(name: mine.displayName))
                }
                throw CommandFailure(HAPControllerError.connection(.pairing(.alreadyPaired)))
            }
            guard let address = announced.addresses.first ?? host else {
                throw CommandFailure(message: "\(announced.name.jsonQuoted) (\(announced.id)) announces no address hap2mqtt can use "
                    + "(only link-local ones): give its address with --host")
            }
            host = host ?? address
            port = port ?? Int(announced.port)
            featureFlags = announced.featureFlags
        }
        guard let host, let port else { throw CommandFailure(message: "give --id, or --host and --port") }
        do {
            let outcome = try await controller.pairSetup(
                host: host, port: UInt16(port), setupCode: setupCode, name: name, featureFlags: featureFlags)
            let pairing = outcome.pairing
            let what: String
            if let old = outcome.replaced {
                let oldName = old.name.map { $0 == pairing.name ? "" : " \($0.jsonQuoted)" } ?? ""
                what = " again (replacing the old pairing\(oldName) of accessory id \(old.accessoryPairingID))"
            } else {
                what = " (accessory id \(pairing.accessoryPairingID))"
            }
            return "paired with \(pairing.displayName.jsonQuoted)\(what) at \(HAPEndpoint(host: pairing.host, port: pairing.port)); "
                + "hap2mqtt accessories lists it\n"
        } catch {
            throw CommandFailure(error)
        }
    }

    /// The announcement of the accessory `id`, listening up to `announcementTimeout`.
    /// - Parameter required: whether pairing needs it (no `--host` and `--port`); when not, an Avahi
    ///   daemon that cannot be reached or an accessory that is not announced gives nil.
    /// - Throws: `CommandFailure` when it is required and cannot be had.
    private static func announcement(of id: String, required: Bool, logger: Logger) async throws(CommandFailure) -> HAPAdvertisement? {
        guard let browser = HAPDiscovery.systemBrowser() else {
            if required { throw CommandFailure(message: DiscoveryError.unsupported.description + ": give --host and --port") }
            return nil
        }
        let discovery = HAPDiscovery(browser: browser, logger: logger)
        do {
            try await discovery.start(waitingForDaemon: false)
        } catch {
            if required { throw CommandFailure(message: error.description) }
            return nil
        }
        let deadline = ContinuousClock.now + announcementTimeout
        var found: HAPAdvertisement?
        while found == nil, ContinuousClock.now < deadline {
            found = await discovery.advertisements(for: id).first
            if found == nil { try? await Task.sleep(for: .milliseconds(50)) }
        }
        await discovery.stop()
        if found == nil, required {
            throw CommandFailure(message: "no accessory with id \(id.uppercased()) announced itself within "
                + "\(Duration.describe(announcementTimeout.inSeconds)): check that it is on and on this network "
                + "(hap2mqtt discover lists the accessories announced), or give --host and --port")
        }
        return found
    }
}
