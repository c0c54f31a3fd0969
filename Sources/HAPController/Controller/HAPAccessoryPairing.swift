public import HomeStore
public import Logging

/// Pair and unpair through the HAP controller, for `Management` (`AccessoryPairing`, docs/DESIGN.md
/// "Parts"). The command line makes one for each `pair` and `unpair`; `hap2mqtt run` makes one for the
/// bridge API and the web page, with its running discovery.
public struct HAPAccessoryPairing: AccessoryPairing {
    /// How long a pair by id waits for the accessory's announcement.
    public static let announcementTimeout: Duration = .seconds(10)

    /// The controller whose state directory holds the pairings.
    public let controller: HAPController
    /// The discovery that runs with the gateway; nil to browse only while a pair by id waits.
    let discovery: HAPDiscovery?
    /// The logger of a discovery made for one pair.
    let discoveryLogger: Logger
    /// The program and version that a backup names as its maker (`hap2mqtt 0.1.0`).
    let backupMaker: String

    /// - Parameters:
    ///   - discovery: the running DNS-SD discovery (`hap2mqtt run`); nil for the command line, which
    ///     browses for the announcement only while a pair by id waits for it.
    ///   - discoveryLogger: for that short browse.
    ///   - backupMaker: the program and version a backup names as its maker.
    public init(
        controller: HAPController, discovery: HAPDiscovery? = nil, discoveryLogger: Logger,
        backupMaker: String = "hap2mqtt"
    ) {
        self.controller = controller
        self.discovery = discovery
        self.discoveryLogger = discoveryLogger
        self.backupMaker = backupMaker
    }

    /// Pair-setup with the accessory (HAP spec §5.6), the pairing saved first (`HAPController.pairSetup`).
    /// By id, its announcement gives the address, the port and the pair-setup method (`ff`); `host` and
    /// `port`, when given, win. One that says it is paired (`sf`) is refused before pair-setup, as
    /// pair-setup would refuse it.
    /// - Throws: `ManagementError`: `.invalidRequest` and `.invalidSetupCode` before any contact;
    ///   `.unreachable` when the accessory is not announced in `announcementTimeout` (nor given a host and
    ///   port) or announces no usable address; `.alreadyPaired` from its announcement; the pairing errors.
    public func pair(_ request: PairRequest) async throws(ManagementError) -> PairedServer {
        try request.validate()
        guard let code = request.code else { throw .invalidRequest("give the accessory's setup code (XXX-XX-XXX)") }
        if let id = request.id, HAPAdvertisement.deviceID(id) == nil {
            throw .invalidRequest("the id must be a device id XX:XX:XX:XX:XX:XX (hex digits), not \"\(id)\"")
        }
        let setupCode: SetupCode
        do {
            setupCode = try SetupCode(code.reveal)
        } catch {
            throw .invalidSetupCode
        }
        var host = request.host
        var port = request.port
        var featureFlags = 0
        // Known at once, without waiting for an announcement.
        if let id = request.id,
            let mine = await controller.pairings().first(where: {
                $0.accessoryPairingID.uppercased() == id.uppercased()
            })
        {
            throw ManagementError(HAPControllerError.alreadyPairedHere(name: mine.displayName))
        }
        if let id = request.id, let announced = try await announcement(of: id, required: host == nil || port == nil) {
            // Not paired here (checked above): another controller holds it.
            if announced.isPaired { throw ManagementError(HAPControllerError.connection(.pairing(.alreadyPaired))) }
            guard let address = announced.addresses.first ?? host else {
                throw .unreachable(
                    "\"\(announced.name)\" (\(announced.id)) announces no address hap2mqtt can use "
                        + "(only link-local ones): give its address as the host")
            }
            host = host ?? address
            port = port ?? Int(announced.port)
            featureFlags = announced.featureFlags
        }
        guard let host, let port else {
            throw .invalidRequest("name the accessory by its id (as discovered), or by its host and port")
        }
        do {
            let outcome = try await controller.pairSetup(
                host: host, port: UInt16(port), setupCode: setupCode, name: request.name, featureFlags: featureFlags)
            let pairing = outcome.pairing
            return PairedServer(
                id: pairing.accessoryPairingID, name: pairing.displayName, host: pairing.host, port: pairing.port,
                replaced: outcome.replaced != nil, replacedName: outcome.replaced?.name)
        } catch {
            throw ManagementError(error)
        }
    }

    /// Remove Pairing on the accessory, then the file here (`HAPController.unpair`).
    public func unpair(_ nameOrID: String, force: Bool) async throws(ManagementError) -> UnpairResult {
        do {
            let pairing = try await controller.pairing(named: nameOrID)
            let outcome: UnpairResult.Outcome
            switch try await controller.unpair(pairing.accessoryPairingID, force: force) {
            case .removed: outcome = .removed
            case .alreadyRemovedOnAccessory: outcome = .alreadyRemovedOnAccessory
            case .removedLocallyOnly(let reason): outcome = .removedLocallyOnly(reason: reason.description)
            }
            return UnpairResult(id: pairing.accessoryPairingID, name: pairing.displayName, outcome: outcome)
        } catch {
            throw ManagementError(error)
        }
    }

    /// The announcement of the accessory `id`, waiting up to `announcementTimeout`: from the running
    /// discovery, or from one made for this wait.
    /// - Parameter required: whether pairing needs it (no host and port given); when not, discovery that
    ///   cannot run or an accessory that is not announced gives nil.
    /// - Throws: `.unreachable` when it is required and cannot be had.
    private func announcement(of id: String, required: Bool) async throws(ManagementError) -> HAPAdvertisement? {
        let unavailable = "give its host and port"
        var browsing = discovery
        var own: HAPDiscovery?
        if required, let reason = await discovery?.unavailableReason {
            throw .unreachable("no announcement can be heard while \(reason): \(unavailable)")
        }
        if browsing == nil {
            guard let browser = HAPDiscovery.systemBrowser() else {
                if required { throw .unreachable(DiscoveryError.unsupported.description + ": \(unavailable)") }
                return nil
            }
            let made = HAPDiscovery(browser: browser, logger: discoveryLogger)
            do {
                try await made.start(waitingForDaemon: false)
            } catch {
                if required { throw .unreachable(error.description) }
                return nil
            }
            own = made
            browsing = made
        }
        let deadline = ContinuousClock.now + Self.announcementTimeout
        var found: HAPAdvertisement?
        while found == nil, ContinuousClock.now < deadline, let browsing {
            found = await browsing.advertisements(for: id).first
            if found == nil { try? await Task.sleep(for: .milliseconds(50)) }
        }
        await own?.stop()
        if found == nil, required {
            throw .unreachable(
                "no accessory with id \(id.uppercased()) announced itself within "
                    + "\(Int(Self.announcementTimeout.inSeconds)) seconds: check that it is on and on this network "
                    + "(hap2mqtt discover and bridge/discovered list the accessories announced), or \(unavailable)")
        }
        return found
    }
}
