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
/// firmware revision every `keepaliveInterval` notices a dead connection. What it learns of an accessory
/// that misbehaves (`AccessoryServerProfile`, kept in the state directory) changes this: characteristics
/// whose events do not come are polled, reads are split into the batches it takes, and one that ends quiet
/// connections gets its keep-alive at half its idle limit. A dropped connection or a
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
    public nonisolated var id: String { Self.providerID(for: pairing) }
    /// The accessory server's pairing id, as its accessories' ids carry it (upper-case).
    public nonisolated var serverID: String? { AccessoryID(serverID: pairing.accessoryPairingID, aid: 0).serverID }
    /// What the provider reports to the store; values that wait unread are merged per characteristic
    /// (`ProviderEventBuffer`), so that an accessory flooding events cannot grow memory.
    public nonisolated let events = ProviderEventQueue()
    /// The accessory server's pairing.
    public nonisolated let pairing: Pairing
    /// The settings in use.
    public nonisolated let settings: HAPProviderSettings

    let context: ProviderContext
    let logger: Logger
    /// The connection's life: connecting, live, backing off, rejected, stopped.
    var machine: ProviderConnectionStateMachine
    /// The live session's client, the one being synced, and where they are connected.
    var link = ProviderLink()
    /// The accessories of the last sync (or of the cache before the first one).
    var index: AccessoryIndex?
    /// Reads and writes waiting for the reconnect under way.
    var waiters = SessionWaiters()
    /// Bridged accessories that answered `-70402`.
    var bridged = BridgedReachability()
    /// Where the accessory server is, from its pairing and its announcements.
    var following: AnnouncementFollowing
    /// What it learned of the accessory server (idle limit, read batches, events that do not come).
    var learning = ProviderLearning()
    var logLimits = ProviderLogLimits()
    /// Writes sent without an answer, to read back on a later session.
    var unconfirmed = UnconfirmedWrites()
    /// The run loop and the announcements' reader.
    private var tasks: (runner: Task<Void, Never>?, listener: Task<Void, Never>?) = (nil, nil)

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

    /// The provider with the time from `clock` (tests move it by hand).
    init(
        controller: HAPController, pairing: Pairing, settings: HAPProviderSettings, discovery: HAPDiscovery?,
        logger: Logger, unreadableReason: String?, clock: any ProviderClock = SystemProviderClock()
    ) {
        self.context = ProviderContext(
            controller: controller,
            cache: AccessoryCache(
                directory: controller.store.directory, accessoryPairingID: pairing.accessoryPairingID),
            profileFile: AccessoryProfileFile(
                directory: controller.store.directory, accessoryPairingID: pairing.accessoryPairingID),
            discovery: discovery, clock: clock, unreadableReason: unreadableReason)
        self.following = AnnouncementFollowing(address: HAPEndpoint(host: pairing.host, port: pairing.port))
        self.machine = ProviderConnectionStateMachine(
            backoff: settings.backoff, offlineGrace: settings.offlineGrace, followsAnnouncements: discovery != nil)
        self.pairing = pairing
        self.settings = settings
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
        guard tasks.runner == nil, !stopped else { return }
        if context.unreadableReason == nil { loadProfile() }
        if let discovery, context.unreadableReason == nil {
            let announcements = await discovery.announcements(for: pairing.accessoryPairingID)
            following.announcement = await discovery.advertisements(for: pairing.accessoryPairingID).first
            tasks.listener = Task {
                for await advertisement in announcements { await self.announced(advertisement) }
            }
        }
        tasks.runner = Task { await self.run() }
    }

    /// Closes the connection, stops reconnecting and finishes `events`.
    public func stop() async {
        await perform(machine.handle(.stop))
    }

    /// Ends the run loop and the announcements' reader, closes every connection and finishes `events`.
    func shutDown() async {
        tasks.runner?.cancel()
        tasks.listener?.cancel()
        let open = link.clients
        link.client = nil
        link.syncing = nil
        for session in open { await session.connection.close() }
        events.finish()
    }

    /// A write to one of its unreachable accessories is handed to it: the write ends the reconnection
    /// back-off and waits for that attempt (`session(after:)`), about a second at most.
    public nonisolated var connectsOnDemand: Bool { true }

    /// Whether the connection is up and synced (for diagnostics and tests).
    public var isConnected: Bool { client != nil }

    /// The live session's client; nil while disconnected.
    var client: HAPClient? { link.client }
    /// Whether `stop()` was called.
    var stopped: Bool { machine.isStopped }
    /// Why there is no live connection.
    var disconnectReason: String { machine.disconnectReason }
    var controller: HAPController { context.controller }
    var discovery: HAPDiscovery? { context.discovery }
    /// Where the accessory server was last reached (`AnnouncementFollowing.address`).
    var address: HAPEndpoint { following.address }
    /// Its last announcement.
    var announcement: HAPAdvertisement? { following.announcement }
    /// The announcement work: running, and whether another round is wanted.
    var announcedWork: (running: Bool, again: Bool) { following.work }

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
