import HomeModel
public import HomeStore
public import Logging
import SystemSupport

/// The HAP `AccessoryProvider`: keeps one paired accessory server in sync with the `HomeStore` over one
/// persistent, pair-verified connection that reads, writes and events share (embedded accessories allow
/// only a few connections, docs/hap-notes.md §7.11).
///
/// Each (re)connection pair-verifies, fetches `/accessories` (cached in the state directory), reads every
/// readable value, subscribes to events for every characteristic with `ev` (one request per aid) and only
/// then reports `.synced` and the accessories reachable. While connected, events become `.values(.event)`,
/// characteristics without events are polled at `pollInterval`, and a keep-alive read of the bridge's
/// firmware revision every `keepaliveInterval` notices a dead connection; an accessory that ends quiet
/// connections sooner gets it at half its learned idle limit (`IdleLimit`). A dropped connection or a
/// request that times out makes every accessory unreachable, unless a new session is synced within
/// `offlineGrace`; a session that ran for a second or more is replaced at once, and reads and writes wait
/// for that attempt; after failed attempts reconnection follows `ReconnectBackoff`. A bridged accessory
/// that answers `-70402` is unreachable alone until a read or event of it succeeds, and its values are read
/// again before it is reported reachable.
///
/// When the first connection fails, the accessories of the cached `/accessories` are reported, unreachable;
/// without a cache the first sync fails (`.syncFailed`), so one dead accessory never holds back the store.
/// When pair-verify says the accessory no longer knows this controller, the provider logs what to do and
/// stops trying.
///
/// With a `HAPDiscovery`, the provider also follows the accessory server's DNS-SD announcements
/// (`HAPAccessoryProvider+Discovery.swift`): it connects at the announced addresses first (the stored one
/// is the fallback) and keeps the one where pair-verify proves the accessory; an announcement while it
/// is offline ends the back-off; a new `c#` re-fetches `/accessories` on the open connection, a new `s#`
/// re-reads the values.
///
/// ```swift
/// let controller = HAPController(stateDirectory: directory)
/// for pairing in await controller.pairings() {
///     await store.add(HAPAccessoryProvider(controller: controller, pairing: pairing))
/// }
/// ```
public actor HAPAccessoryProvider: AccessoryProvider {
    /// `hap:<accessory pairing id>`.
    public nonisolated let id: String
    /// The accessory server's pairing id, as its accessories' ids carry it (upper-case).
    public nonisolated let serverID: String?
    /// What the provider reports to the store; values that wait unread are merged per characteristic
    /// (`ProviderEventBuffer`), so that an accessory flooding events cannot grow memory.
    public nonisolated let events = ProviderEventQueue()
    /// The accessory server's pairing.
    public nonisolated let pairing: Pairing
    /// The settings in use.
    public nonisolated let settings: HAPProviderSettings

    let controller: HAPController
    let cache: AccessoryCache
    let logger: Logger

    /// The live session's client; nil while disconnected.
    var client: HAPClient?
    /// The client of a sync in progress, closed by `stop()`.
    var syncing: HAPClient?
    /// The accessories of the last sync (or of the cache before the first one).
    var index: AccessoryIndex?
    /// Bridged accessories that answered `-70402`, by aid, with the reason.
    var offlineAIDs: [Int: String] = [:]
    /// Why there is no live connection.
    var disconnectReason = "not connected yet"
    /// Whether the first sync (or its failure) has been reported.
    var firstSyncReported = false
    /// Failed connection attempts since the last good sync, for the log.
    var failuresInARow = 0
    var stopped = false
    /// From a dropped session until the first attempt to replace it ends: reads and writes wait for it.
    var reconnecting = false
    /// Reads and writes waiting for the reconnect under way, by token.
    var sessionWaiters: [UInt64: CheckedContinuation<HAPClient?, Never>] = [:]
    var nextWaiterToken: UInt64 = 0
    /// The accessories of a dropped session, whose offline report waits for `settings.offlineGrace`.
    var pendingOfflineReport: [AccessoryID]?
    /// Counts held offline reports, so that an old one's timer cannot send a newer one.
    var offlineReportGeneration: UInt64 = 0
    /// How quiet connections may get before the accessory ends them, learned from its drops.
    var idleLimit = IdleLimit()
    /// The accessory list's problems already logged (`HAPModelProblem.description`).
    var reportedListProblems: Set<String> = []
    /// One line a minute about values their format cannot carry.
    var unreadableValueLog = LogLimiter()
    /// How many sessions were installed (synced); every one after the first is a reconnect.
    var sessionsInstalled = 0
    /// The accessory refused this controller for good: the provider stopped trying.
    var isRejected = false
    /// Why the pairing cannot be used (its file is damaged); such a provider never connects.
    let unreadableReason: String?
    private var runner: Task<Void, Never>?

    /// The announcements of this accessory server, when the gateway browses DNS-SD.
    let discovery: HAPDiscovery?
    /// Where the accessory server was last reached: the pairing's address at first, then wherever it was
    /// followed to. The fallback when nothing is announced.
    var address: HAPEndpoint
    /// Where the live session (or the sync in progress) is connected.
    var connectedEndpoint: HAPEndpoint?
    /// Ends the back-off early when the accessory announces itself.
    let wakeup = Wakeup()
    /// Its last announcement.
    var announcement: HAPAdvertisement?
    /// Announced addresses where pair-verify did not prove the paired accessory, and when: not tried
    /// again for `HAPAccessoryProvider.unverifiableLifetime`.
    var unverifiable: [HAPEndpoint: ContinuousClock.Instant] = [:]
    /// Addresses already logged as not proving the accessory (each is logged once).
    var reportedUnverifiable: Set<HAPEndpoint> = []
    /// The `c#` and `s#` the accessories and values of the live session were read at, when known.
    var syncedNumbers: (configuration: Int?, state: Int?) = (nil, nil)
    /// A re-fetch or re-read asked for by an announcement: running, and whether another is wanted.
    var announcedWork: (running: Bool, again: Bool) = (false, false)
    /// At most one "announced itself" line a minute.
    var announcementLog = LogLimiter()
    /// Reads the announcements.
    private var listener: Task<Void, Never>?

    /// A provider for `pairing`, connecting through `controller` (whose state directory also keeps the
    /// cache). Nothing happens until `start()`.
    /// - Parameter discovery: the gateway's DNS-SD browsing, to follow the accessory server's
    ///   announcements; nil to use the stored address only.
    public init(
        controller: HAPController, pairing: Pairing, settings: HAPProviderSettings = HAPProviderSettings(),
        discovery: HAPDiscovery? = nil, logger: Logger
    ) {
        self.init(
            controller: controller, pairing: pairing, settings: settings, discovery: discovery, logger: logger,
            unreadableReason: nil)
    }

    private init(
        controller: HAPController, pairing: Pairing, settings: HAPProviderSettings, discovery: HAPDiscovery?,
        logger: Logger,
        unreadableReason: String?
    ) {
        self.unreadableReason = unreadableReason
        self.discovery = discovery
        self.address = HAPEndpoint(host: pairing.host, port: pairing.port)
        self.id = Self.providerID(for: pairing)
        self.serverID = AccessoryID(serverID: pairing.accessoryPairingID, aid: 0).serverID
        self.controller = controller
        self.pairing = pairing
        self.settings = settings
        self.cache = AccessoryCache(
            directory: controller.store.directory, accessoryPairingID: pairing.accessoryPairingID)
        self.logger = logger.with(["pairing": pairing.accessoryPairingID])
    }

    /// A provider for a pairing whose file cannot be read (`reason`, e.g. "…json is damaged (not JSON)"):
    /// it never connects, and reports the accessories cached at the last connection as unreachable with
    /// that reason, so that their topics say `offline` instead of keeping the last run's `online`. Its
    /// `id` is the real provider's, which takes its place once the file is repaired.
    public init(
        controller: HAPController, unreadablePairingID accessoryPairingID: String, reason: String,
        settings: HAPProviderSettings = HAPProviderSettings(), logger: Logger
    ) {
        let placeholder = Pairing(
            accessoryPairingID: accessoryPairingID, accessoryLTPK: [], controllerPairingID: "", host: "", port: 0,
            name: nil)
        self.init(
            controller: controller, pairing: placeholder, settings: settings, discovery: nil, logger: logger,
            unreadableReason: reason)
    }

    /// Starts connecting; the first sync is reported through `events`.
    public func start() async {
        guard runner == nil, !stopped else { return }
        if let discovery, unreadableReason == nil {
            let announcements = await discovery.announcements(for: pairing.accessoryPairingID)
            announcement = await discovery.advertisements(for: pairing.accessoryPairingID).first
            listener = Task {
                for await advertisement in announcements { await self.announced(advertisement) }
            }
        }
        runner = Task { await self.run() }
    }

    /// Closes the connection, stops reconnecting and finishes `events`.
    public func stop() async {
        guard !stopped else { return }
        stopped = true
        runner?.cancel()
        reconnectEnded(with: nil)
        cancelOfflineReport()
        listener?.cancel()
        for session in [client, syncing].compactMap({ $0 }) { await session.connection.close() }
        client = nil
        syncing = nil
        events.finish()
    }

    /// Whether the connection is up and synced (for diagnostics and tests).
    public var isConnected: Bool { client != nil }

    /// Reports `event` to the store, unless stopped.
    func emit(_ event: ProviderEvent) {
        guard !stopped else { return }
        events.push(event)
    }

    /// The accessory server's name for log lines: the pairing's name, else its id.
    nonisolated var displayName: String { pairing.displayName }

    /// The `id` of the provider for `pairing`: `hap:<accessory pairing id>`.
    public static func providerID(for pairing: Pairing) -> String { "hap:\(pairing.accessoryPairingID)" }
}
