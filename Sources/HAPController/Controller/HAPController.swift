import HomeModel
public import Logging
import Synchronization
public import SystemSupport

/// The HAP controller: pairs with accessory servers, keeps the pairings in the state directory and opens
/// verified connections to them. The command line and the HAP accessory provider use it.
///
/// ```swift
/// let controller = HAPController(stateDirectory: StateDirectory(path: "./data"), logger: Logger(label: "hap"))
/// let pairing = try await controller.pair(host: "192.168.1.20", port: 51826, setupCode: try SetupCode("031-45-154"))
/// let client = try await controller.connect(to: pairing)
/// let accessories = try await client.accessories()
/// ```
///
/// The controller identity (`controller.json`) is created on first use, while no pairing file exists.
/// Several `HAPController`s on the same directory (a restart) share it and the pairings.
public actor HAPController {
    /// Where the identity and the pairings are kept.
    public nonisolated let store: PairingStore
    /// The limit for making a TCP connection.
    public nonisolated let connectTimeout: Duration
    /// The default limit for each request's answer on the connections this controller opens.
    public nonisolated let requestTimeout: Duration
    let logger: Logger
    private var cachedIdentity: ControllerIdentity?
    /// The identity problem `reportIdentityProblem(_:)` logged last, until the identity loads.
    private var reportedIdentityProblem: PairingStoreError?
    /// The addresses providers followed their accessory servers to and saved, by upper-case accessory
    /// pairing id (`followedAddress(of:)`).
    private let followed = Mutex<[String: HAPEndpoint]>([:])
    /// The accessory pairing ids (upper case) whose pairing `unpair` is removing now: the accessory closes
    /// the running session of a removed controller, which is then no lost connection.
    private let removing = Mutex<Set<String>>([])

    /// A controller keeping its files in `stateDirectory`; nothing is read until it is needed.
    public init(
        stateDirectory: StateDirectory, logger: Logger,
        connectTimeout: Duration = TCPConnection.defaultConnectTimeout,
        requestTimeout: Duration = HAPConnection.defaultRequestTimeout
    ) {
        self.store = PairingStore(directory: stateDirectory)
        self.logger = logger
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
    }

    /// This controller's identity, created and saved on first use (while no pairing file exists).
    /// - Throws: `.storage` when `controller.json` is damaged, cannot be read or written, or is missing
    ///   beside pairing files.
    public func identity() throws(HAPControllerError) -> ControllerIdentity {
        if let cachedIdentity { return cachedIdentity }
        do {
            let identity = try store.identity()
            cachedIdentity = identity
            return identity
        } catch {
            throw .storage(error)
        }
    }

    /// The identity pair-verify uses for `pairing`: its own when it was taken over from another controller
    /// (`Pairing.controller`), else this controller's.
    /// - Throws: as `identity()`.
    public func identity(for pairing: Pairing) throws(HAPControllerError) -> ControllerIdentity {
        if let own = pairing.controller { return own }
        return try identity()
    }

    /// Logs `problem`, why the identity cannot be loaded, as one error while it lasts: every provider
    /// meets it, and one line says what to do.
    func reportIdentityProblem(_ problem: PairingStoreError) {
        guard reportedIdentityProblem != problem else { return }
        reportedIdentityProblem = problem
        logger.error("no accessory can be reached: \(problem)")
    }

    /// Whether the identity loads now; says so in the log when a problem with it was reported, and
    /// reports a problem that changed (a damaged file where a missing one was).
    func identityLoads() -> Bool {
        do {
            _ = try identity()
        } catch .storage(let problem) {
            reportIdentityProblem(problem)
            return false
        } catch {
            return false
        }
        if reportedIdentityProblem != nil {
            reportedIdentityProblem = nil
            logger.notice("this controller's identity loads again; connecting to the accessories")
        }
        return true
    }

    /// The stored pairings, sorted by name. Damaged pairing files are skipped and logged as warnings.
    public func pairings() -> [Pairing] {
        let contents = store.loadPairings()
        for problem in contents.problems { logger.warning("skipped a pairing file: \(problem)") }
        return contents.pairings
    }

    /// The stored pairing called `nameOrID`: its name (any case), its accessory pairing id (any case), or
    /// an accessory id `<pairing id>/<aid>` of one of its accessories.
    /// - Throws: `.unknownPairing` with the names there are, `.ambiguousPairing` when a name repeats.
    public func pairing(named nameOrID: String) throws(HAPControllerError) -> Pairing {
        let all = pairings()
        let wanted = nameOrID.trimmingCharacters(in: .whitespaces).lowercased()
        let byName = all.filter { $0.name?.lowercased() == wanted }
        if byName.count > 1 { throw .ambiguousPairing(nameOrID, matches: byName.map(\.accessoryPairingID)) }
        if let match = byName.first { return match }
        let serverID = AccessoryID(wanted).map { $0.serverID.lowercased() } ?? wanted
        if let match = all.first(where: { $0.accessoryPairingID.lowercased() == serverID }) { return match }
        throw .unknownPairing(nameOrID, known: all.map(\.displayName))
    }

    /// Opens a connection to the accessory server of `pairing` and pair-verifies it (HAP spec §5.7).
    /// - Throws: `.connection` (`.connection(.pairing(.authenticationFailed))` when the accessory no longer
    ///   knows this controller), `.storage` when the identity cannot be loaded.
    public func connect(to pairing: Pairing) async throws(HAPControllerError) -> HAPClient {
        let identity = try identity(for: pairing)
        if pairing.controllerPairingID != identity.pairingID {
            logger.warning(
                "the pairing was made by another controller identity; pair-verify will likely fail",
                ["hap.accessory": pairing.accessoryPairingID])
        }
        let connection = try await open(host: pairing.host, port: pairing.port)
        do {
            try await connection.verify(controller: identity, pairing: pairing)
        } catch {
            throw .connection(error)
        }
        return HAPClient(connection: connection, pairing: pairing)
    }

    /// Saves `endpoint` as the address of the accessory server of `pairing`, whose provider followed it
    /// there after pair-verify proved it (its announcement moved), so that a restart without multicast
    /// finds it too. The stored pairing is changed in its host and port only, and only when it is still
    /// the same pairing (same accessory key).
    /// - Returns: the saved pairing; nil when the file is gone or holds another pairing now.
    /// - Throws: `.storage` when the file cannot be read or written.
    @discardableResult
    public nonisolated func saveAddress(_ endpoint: HAPEndpoint, of pairing: Pairing) throws(HAPControllerError)
        -> Pairing?
    {
        do {
            guard var stored = try store.pairing(accessoryPairingID: pairing.accessoryPairingID),
                stored.accessoryLTPK == pairing.accessoryLTPK
            else { return nil }
            guard stored.host != endpoint.host || stored.port != endpoint.port else { return stored }
            stored.host = endpoint.host
            stored.port = endpoint.port
            followed.withLock { $0[stored.accessoryPairingID.uppercased()] = endpoint }
            try store.save(stored)
            return stored
        } catch {
            throw .storage(error)
        }
    }

    /// Whether the host and port of `pairing` are those `saveAddress` saved for its accessory server: a
    /// change of the pairing file that a provider made itself, which needs no new provider.
    /// Whether the pairing with `accessoryPairingID` is gone or being removed by `unpair`: its session
    /// ending is then expected, no reason to warn or reconnect.
    public nonisolated func isRemoved(_ accessoryPairingID: String) -> Bool {
        if removing.withLock({ $0.contains(accessoryPairingID.uppercased()) }) { return true }
        do {
            return try store.pairing(accessoryPairingID: accessoryPairingID) == nil
        } catch {
            return false  // a damaged file is still a pairing, and says so where it is read
        }
    }

    /// Marks the pairing with `accessoryPairingID` as being removed, or no longer.
    func markRemoving(_ accessoryPairingID: String, _ on: Bool) {
        let id = accessoryPairingID.uppercased()
        removing.withLock { set in
            if on { set.insert(id) } else { set.remove(id) }
        }
    }

    public nonisolated func isFollowedAddress(of pairing: Pairing) -> Bool {
        followed.withLock { $0[pairing.accessoryPairingID.uppercased()] }
            == HAPEndpoint(host: pairing.host, port: pairing.port)
    }

    /// A cleartext connection with this controller's limits and logger.
    func open(host: String, port: UInt16) async throws(HAPControllerError) -> HAPConnection {
        do {
            return try await HAPConnection.connect(
                host: host, port: port, connectTimeout: connectTimeout,
                requestTimeout: requestTimeout, logger: logger)
        } catch {
            throw .connection(error)
        }
    }
}
