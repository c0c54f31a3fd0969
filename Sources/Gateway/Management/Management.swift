import HomeModel
public import HomeStore
public import Logging

/// The operations that manage the gateway: pair, unpair (and, with the running gateway, refresh, options
/// and health). Each lives here once, and the command line (`hap2mqtt pair`, `hap2mqtt unpair`), the
/// MQTT bridge API (`bridge/request/<command>`) and the web page all call it, so the three never disagree
/// (docs/DESIGN.md "Topics", docs/topics.md "Managing the gateway over MQTT").
///
/// The backend is reached through `AccessoryPairing` (docs/DESIGN.md "Parts"), so this knows nothing of
/// HAP. `hap2mqtt run` makes one and `attach`es its `Gateway`; the command line makes one without.
///
/// The setup code is never logged, echoed in a result or an error, or kept: it goes to the backend and
/// nowhere else.
public actor Management {
    private let pairing: any AccessoryPairing
    /// The accessories seen on the network and not paired here; nil when discovery is off.
    public nonisolated let discovery: (any AccessoryDiscovery)?
    private let logger: Logger
    private let pairingsChanged: @Sendable () async -> Void
    /// The running gateway, once attached: for names by slug and the gateway's part of an operation.
    private weak var gateway: Gateway?
    /// What the pair under way was asked to pair with, as the busy answer names it.
    private var pairingUnderWay: String?
    /// Whether a pair or an unpair is changing the pairings now, and who waits for their turn after it.
    private var pairingsChanging = false
    private var waitingForPairings: [CheckedContinuation<Void, Never>] = []
    /// Where the options of `setOptions` are saved; nil keeps them in memory (tests).
    private let optionsFile: AccessoryOptionsFile?
    /// The options saved, by accessory.
    private var savedOptions: [AccessoryID: AccessoryOptions] = [:]
    /// Whether the saved options could not be read: `setOptions` reads the file again, and refuses while it
    /// still cannot, so that the file is not replaced.
    private var optionsFileDamaged = false

    /// Operations on `pairing`'s backend.
    /// - Parameters:
    ///   - discovery: the accessories seen on the network (`discovered()`, `bridge/discovered`); nil when
    ///     discovery is off or not wanted (the command line).
    ///   - options: where `setOptions` saves the accessories' options (`options.json` in the state
    ///     directory); nil keeps them in memory.
    ///   - logger: for debugging lines (never a setup code), and the one line about a damaged options
    ///     file; the callers report outcomes, each its own way.
    ///   - pairingsChanged: called after a pair or an unpair changed the pairings, so that the running
    ///     gateway takes the change up at once (`hap2mqtt run` checks its state directory then).
    public init(
        pairing: any AccessoryPairing, discovery: (any AccessoryDiscovery)? = nil, options: AccessoryOptionsFile? = nil,
        logger: Logger, pairingsChanged: @escaping @Sendable () async -> Void = {}
    ) {
        self.pairing = pairing
        self.discovery = discovery
        self.optionsFile = options
        self.logger = logger
        self.pairingsChanged = pairingsChanged
    }

    /// Lets the operations use the running `gateway` (held weakly: the gateway owns this), and hands it
    /// and its store the saved options. Call it before the gateway runs and before its store starts, so
    /// that the first publish already shows them. A damaged options file is logged in one line and kept
    /// as it is; the gateway then runs without saved options.
    public func attach(_ gateway: Gateway) async {
        self.gateway = gateway
        if let optionsFile {
            do {
                savedOptions = try optionsFile.load()
            } catch {
                optionsFileDamaged = true
                logger.error("the saved accessory options are not applied: \(error)")
            }
        }
        await gateway.takeSavedOptions(savedOptions)
    }

    /// Pairs with the accessory `request` names and saves the pairing; a running gateway then takes its
    /// accessories up at once. One pair runs at a time: pair-setup is a conversation with one accessory
    /// that a second one would break, and two requests for one accessory must not both start it.
    /// - Throws: `ManagementError`: `.busy` while another pair is under way; `.invalidRequest` and
    ///   `.invalidSetupCode` before any contact; else the backend's errors (`.wrongSetupCode`,
    ///   `.alreadyPaired`, `.unreachable`, `.failed`).
    public func pair(_ request: PairRequest) async throws(ManagementError) -> PairedServer {
        try request.validate()
        let target = Self.describe(request)
        if let underWay = pairingUnderWay {
            throw .busy("another pairing is under way (with \(underWay)): try again when it has finished")
        }
        pairingUnderWay = target
        defer { pairingUnderWay = nil }
        await takePairingsTurn()
        defer { endPairingsTurn() }
        logger.debug("pairing with \(target)")
        let paired = try await pairing.pair(request)
        logger.debug("paired with \(paired.name) (\(paired.id)) at \(paired.host):\(paired.port)")
        await pairingsChanged()
        return paired
    }

    /// Removes the pairing of `accessory` on the accessory and here; a running gateway then clears every
    /// topic of its accessories at once. Unpairs run one at a time, and after a pair under way: a second
    /// unpair of the same accessory server (by another of its names) waits for the first, then finds no
    /// pairing, where both would have gone to the accessory and the second been told a wrong outcome.
    /// - Parameters:
    ///   - accessory: a topic slug or an accessory id (`AA:BB:CC:DD:EE:FF/1`) of the running gateway, or a
    ///     pairing's name or accessory pairing id (`AA:BB:CC:DD:EE:FF`), as `hap2mqtt accessories` lists them.
    ///   - force: forget the pairing here even when the accessory cannot be told.
    /// - Throws: `ManagementError`: `.invalidRequest` for an empty name, `.unknownAccessory`,
    ///   `.unreachable` when the accessory cannot be told and not `force` (the pairing is kept), `.failed`.
    public func unpair(_ accessory: String, force: Bool) async throws(ManagementError) -> UnpairResult {
        guard !accessory.allSatisfy(\.isWhitespace) else {
            throw .invalidRequest("name the accessory: its topic slug, its id, or its pairing's name")
        }
        await takePairingsTurn()
        defer { endPairingsTurn() }
        var nameOrID = accessory
        if let gateway, let id = await gateway.accessoryID(named: accessory) { nameOrID = id.serverID }
        let result = try await pairing.unpair(nameOrID, force: force)
        logger.debug("unpaired \(result.name) (\(result.id))")
        await pairingsChanged()
        return result
    }

    /// The controllers paired with the accessory server of `accessory` (`bridge/request/list_pairings`,
    /// `hap2mqtt pairings`), as the accessory lists them. Runs in the pairings' turn, after a pair or
    /// an unpair under way.
    /// - Parameter accessory: as for `unpair(_:force:)`.
    /// - Throws: `ManagementError`: `.invalidRequest` for an empty name, `.unknownAccessory`, `.unreachable`,
    ///   `.failed` with the accessory's own error (this gateway not an admin of it, and others).
    public func controllerPairings(of accessory: String) async throws(ManagementError) -> ControllerPairings {
        let server = try await pairingsTarget(accessory)
        await takePairingsTurn()
        defer { endPairingsTurn() }
        return try await pairing.controllerPairings(of: server)
    }

    /// Adds `controller` to the accessory server of `accessory` (`bridge/request/add_pairing`), such as a
    /// standby gateway or another home hub; returns the pairings the accessory then lists.
    /// - Throws: as `controllerPairings(of:)`; `.invalidRequest` for this gateway's own pairing id.
    public func addControllerPairing(_ controller: ControllerPairing, to accessory: String)
        async throws(ManagementError) -> ControllerPairings
    {
        let server = try await pairingsTarget(accessory)
        await takePairingsTurn()
        defer { endPairingsTurn() }
        let pairings = try await pairing.addControllerPairing(controller, to: server)
        logger.notice(
            "added the controller \(controller.id) (\(controller.admin ? "admin" : "not admin")) to \(pairings.name) (\(pairings.id))"
        )
        return pairings
    }

    /// Removes the controller `pairingID` from the accessory server of `accessory`
    /// (`bridge/request/remove_pairing`); returns the pairings the accessory then lists. This gateway's own
    /// pairing is refused: `unpair` removes it.
    /// - Throws: as `controllerPairings(of:)`; `.invalidRequest` for an empty id or this gateway's own.
    public func removeControllerPairing(_ pairingID: String, from accessory: String) async throws(ManagementError)
        -> ControllerPairings
    {
        guard !pairingID.isEmpty else { throw .invalidRequest("give the pairing id of the controller to remove") }
        let server = try await pairingsTarget(accessory)
        await takePairingsTurn()
        defer { endPairingsTurn() }
        let pairings = try await pairing.removeControllerPairing(pairingID, from: server)
        logger.notice("removed the controller \(pairingID) from \(pairings.name) (\(pairings.id))")
        return pairings
    }

    /// The pairing name or accessory server id that `accessory` (a topic slug, an accessory id, a
    /// pairing's name or id) names, for the backend.
    private func pairingsTarget(_ accessory: String) async throws(ManagementError) -> String {
        guard !accessory.allSatisfy(\.isWhitespace) else {
            throw .invalidRequest("name the accessory: its topic slug, its id, or its pairing's name")
        }
        if let gateway, let id = await gateway.accessoryID(named: accessory) { return id.serverID }
        return accessory
    }

    /// Fetches the accessories and every value again from the accessory server of `accessory` (a topic
    /// slug or an accessory id), or from every server for nil, and reconciles what changed: topics are
    /// made or cleared, `bridge/event` says so (`bridge/request/refresh`), as the store takes the fresh
    /// sync in, a moment after this returns.
    /// - Returns: the ids of the accessory servers refreshed (`hap:AA:BB:CC:DD:EE:FF`), sorted.
    /// - Throws: `.notRunning` without a running gateway, `.unknownAccessory`, `.failed` with the
    ///   servers that could not be reached.
    public func refresh(_ accessory: String?) async throws(ManagementError) -> [String] {
        guard let gateway else { throw .notRunning("refresh needs the running gateway (hap2mqtt run)") }
        var id: AccessoryID?
        if let accessory {
            guard let found = await gateway.accessoryID(named: accessory) else {
                throw .unknownAccessory("no accessory '\(accessory)'; see bridge/accessories")
            }
            id = found
        }
        do {
            return try await gateway.store.refresh(id)
        } catch {
            throw .failed(error.description)
        }
    }

    /// Changes the options of `accessory` (`bridge/request/options`), saves them in the state directory,
    /// and applies them at once: a new name moves the accessory's topics to the slug made from it (as the
    /// `rename` request does, clearing the old ones), a room moves it in Home Assistant, `exclude` clears
    /// every topic and discovery config of it and refuses its commands until `exclude` is false again. An
    /// option removed (`.remove`) lets the YAML file's value apply again. The change is saved before it is
    /// applied; when it cannot be saved, nothing changes.
    /// - Parameters:
    ///   - accessory: a topic slug (also an excluded accessory's) or an accessory id (`AA:BB:CC:DD:EE:FF/1`).
    ///   - change: what to do with each option.
    /// - Returns: the accessory, its slug now and before (when it moved), and every option saved for it.
    /// - Throws: `ManagementError`: `.notRunning` without a running gateway, `.invalidRequest` for a bad
    ///   value, `.unknownAccessory`, `.failed` when the options file is damaged or cannot be written.
    public func setOptions(_ accessory: String, _ change: AccessoryOptionsChange) async throws(ManagementError)
        -> AccessoryOptionsResult
    {
        guard let gateway else { throw .notRunning("options need the running gateway (hap2mqtt run)") }
        try change.validate()
        guard let id = await gateway.optionsTarget(named: accessory) else {
            throw .unknownAccessory("no accessory '\(accessory)'; see bridge/accessories")
        }
        if optionsFileDamaged { try await takeRepairedOptionsFile(into: gateway) }
        let options = change.applied(to: savedOptions[id] ?? AccessoryOptions())
        var all = savedOptions
        all[id] = options.isEmpty ? nil : options
        if all != savedOptions {
            try optionsFile?.save(all)
            savedOptions = all
        }
        let moved = try await gateway.applyOptions(options, to: id, renaming: change.name != .keep)
        logger.debug("options of \(id): \(options)")
        return AccessoryOptionsResult(id: id, slug: moved.slug, previousSlug: moved.from, options: options)
    }

    /// Reads the options file that was damaged again, since the user may have fixed or removed it meanwhile
    /// (docs/security.md promises requests are refused only until then): once it reads, its options are applied
    /// as at start (slugs stay), and the request goes on.
    /// - Throws: `ManagementError.failed` saying what is wrong with it when it is still damaged.
    private func takeRepairedOptionsFile(into gateway: Gateway) async throws(ManagementError) {
        guard let optionsFile else { return }
        let loaded = try optionsFile.load()
        optionsFileDamaged = false
        savedOptions = loaded
        logger.info("\(optionsFile.path) reads again; its \(loaded.count) accessories' options are applied")
        for (id, options) in loaded.sorted(by: { $0.key < $1.key }) {
            // Without renaming, applying cannot fail.
            _ = try? await gateway.applyOptions(options, to: id, renaming: false)
        }
    }

    /// Whether the running gateway is healthy (`bridge/request/health_check`): it has published the home
    /// and is connected to the broker. False without a running gateway.
    public func healthy() async -> Bool {
        await gateway?.isHealthy ?? false
    }

    /// The `bridge/health` JSON object now: uptime, resident memory, MQTT messages received and sent, and
    /// per accessory server its connection, address, last event, reconnects, reads, writes, failed
    /// writes and events (docs/DESIGN.md "Topics").
    /// - Throws: `.notRunning` without a running gateway.
    public func health() async throws(ManagementError) -> String {
        guard let gateway else { throw .notRunning("the health of the gateway is known only while hap2mqtt run runs") }
        return await gateway.healthJSON()
    }

    /// The accessories seen on the network and not paired with this gateway, sorted by name, then id;
    /// empty when discovery is off. Pair one with `pair(PairRequest(id: accessory.id, code: …))`.
    public func discovered() async -> [DiscoveredAccessory] {
        await discovery?.discoveredAccessories() ?? []
    }

    /// The encrypted backup of the pairings and what goes with them (`AccessoryPairing.backup`), taken
    /// between pairs and unpairs so that it never holds half of one. The passphrase is never logged.
    /// - Throws: `ManagementError.invalidRequest` for a passphrase too short, `.failed` when there is
    ///   nothing to back up or the state directory cannot be read.
    public func backup(passphrase: [UInt8]) async throws(ManagementError) -> [UInt8] {
        await takePairingsTurn()
        defer { endPairingsTurn() }
        let archive = try await pairing.backup(passphrase: passphrase)
        logger.notice("made a backup of the pairings (\(archive.count) bytes)")
        return archive
    }

    /// Waits until no other pair or unpair changes the pairings; the caller then does, until
    /// `endPairingsTurn()`.
    private func takePairingsTurn() async {
        guard pairingsChanging else {
            pairingsChanging = true
            return
        }
        await withCheckedContinuation { waitingForPairings.append($0) }
    }

    /// Hands the turn to the next waiting pair or unpair (which then holds it), or frees it.
    private func endPairingsTurn() {
        if waitingForPairings.isEmpty {
            pairingsChanging = false
        } else {
            waitingForPairings.removeFirst().resume()
        }
    }

    /// How the busy answer and the log name a pair request: never with its setup code.
    private static func describe(_ request: PairRequest) -> String {
        if let host = request.host, let port = request.port { return "\(host):\(port)" }
        return request.id?.uppercased() ?? "an accessory"
    }
}
