import HomeModel
import HomeStore
public import Logging

/// Finds HomeKit accessory servers on the local network: reads a `ServiceBrowser` browsing `_hap._tcp`
/// (HAP spec §6.4; docs/hap-notes.md §5), keeps the announcements it can use (`HAPAdvertisement`) by instance
/// name, and tells whoever asked about one device id when it announces itself or changes (the HAP
/// provider follows a new address, reconnects a returning accessory, re-fetches on a new `c#`). The
/// accessories not paired with this gateway are the `AccessoryDiscovery` list (`HAPDiscovery+List.swift`).
///
/// Everything from the network is bounded (docs/DESIGN.md "Hostile input"): at most
/// `Limits.maximumServices` services are kept (later ones are ignored until others go, except those of
/// ids someone listens for, the paired accessories, which take the place of the least recent other),
/// an announcement that repeats what is known changes nothing, and each accessory (or ignored service)
/// gets at most one log line a minute.
///
/// ```swift
/// let discovery = HAPDiscovery(browser: AvahiServiceBrowser(), logger: logger)
/// try await discovery.start(waitingForDaemon: false)
/// try await Task.sleep(for: .seconds(5))
/// for advertisement in await discovery.advertisements { print(advertisement.name, advertisement.id) }
/// await discovery.stop()
/// ```
public actor HAPDiscovery {
    /// The DNS-SD service type of HAP over IP.
    public static let serviceType = "_hap._tcp"

    /// How much is kept and how often things are retried.
    public struct Limits: Sendable, Hashable {
        /// The most services kept at once.
        public var maximumServices: Int
        /// How long changes to the list of accessories not paired here are gathered before it is sent.
        public var listDelay: Duration
        /// How often `run` tries again to reach a daemon that could not be reached at all.
        public var retryInterval: Duration

        public init(
            maximumServices: Int = 512, listDelay: Duration = .milliseconds(100), retryInterval: Duration = .seconds(30)
        ) {
            self.maximumServices = maximumServices
            self.listDelay = listDelay
            self.retryInterval = retryInterval
        }
    }

    /// Whether the Avahi daemon could be reached, for the words of the log.
    private struct DaemonStatus {
        /// The last attempt to browse found no daemon.
        var wasUnavailable = false
        /// Browsing ran at some point.
        var hasBrowsed = false
    }

    /// The list of accessories not paired here, as its readers get it.
    struct UnpairedList {
        /// Its readers, by number.
        var subscribers: [Int: AsyncStream<[DiscoveredAccessory]>.Continuation] = [:]
        /// The list as last sent to them.
        var last: [DiscoveredAccessory]?
        /// The pending send of the list, while changes are gathered.
        var update: Task<Void, Never>?
        /// `pairedIDs()` as last asked, and when.
        var pairedIDCache: (ids: Set<String>, at: ContinuousClock.Instant)?
    }

    private struct Entry {
        var instance: ServiceInstance
        var advertisement: HAPAdvertisement
        /// Grows with every change, for "most recent first".
        var sequence: Int
    }

    let browser: any ServiceBrowser
    let limits: Limits
    let logger: Logger
    /// The device ids (upper-case) paired with this gateway, for the list of the others.
    let pairedIDs: @Sendable () -> Set<String>
    /// What to add to the pair command logged for an accessory ready to pair; nil to log none.
    let pairingHint: String?

    private var entries: [String: Entry] = [:]
    private var sequence = 0
    private var limiter = LogLimiter()
    private var subscribers: [String: [Int: AsyncStream<HAPAdvertisement>.Continuation]] = [:]
    private var nextSubscriber = 0
    private var reader: Task<Void, Never>?
    private(set) var stopped = false
    private var daemon = DaemonStatus()
    /// Why browsing is not running now (the daemon cannot be reached), nil while it runs or before it
    /// first tried: a pair by id can then fail at once instead of waiting for an announcement.
    public private(set) var unavailableReason: String?
    /// The list of accessories not paired here and its readers (`HAPDiscovery+List.swift`).
    var list = UnpairedList()

    /// Reading announcements from `browser`; nothing happens until `start`.
    /// - Parameters:
    ///   - pairedIDs: the device ids this gateway is paired with (any case), asked when the list of
    ///     accessories not paired here is made.
    ///   - pairingHint: when not nil, an accessory that appears ready to pair (not paired with any
    ///     controller, nor here) is logged at info with the command that pairs it, this text added to it
    ///     (` --config FILE`, or empty), instead of the debug line every accessory gets. `run` gives one;
    ///     the commands, which print what they find, do not.
    public init(
        browser: any ServiceBrowser, pairedIDs: @escaping @Sendable () -> Set<String> = { [] },
        pairingHint: String? = nil,
        logger: Logger, limits: Limits = Limits()
    ) {
        self.browser = browser
        self.pairedIDs = pairedIDs
        self.pairingHint = pairingHint
        self.logger = logger
        self.limits = limits
    }

    /// Starts browsing.
    /// - Parameter waitingForDaemon: false for a one-off command: a daemon that cannot be reached is an
    ///   error. True for the gateway: it logs why discovery is off and keeps trying (every
    ///   `Limits.retryInterval`), and never throws.
    /// - Throws: `DiscoveryError` (only when not waiting).
    public func start(waitingForDaemon: Bool) async throws(DiscoveryError) {
        guard reader == nil, !stopped else { return }
        if !waitingForDaemon {
            let events = try await browser.browse(type: Self.serviceType, waitingForDaemon: false)
            reader = Task { await self.read(events) }
            return
        }
        reader = Task { await self.browseUntilStopped() }
    }

    /// Stops browsing; the streams of `announcements(for:)` and of the list end.
    public func stop() async {
        guard !stopped else { return }
        stopped = true
        reader?.cancel()
        await browser.stop()
        for continuation in subscribers.values.flatMap(\.values) { continuation.finish() }
        subscribers = [:]
        finishListSubscribers()
    }

    /// Every usable announcement known now, sorted by name, then id.
    public var advertisements: [HAPAdvertisement] {
        entries.values.map(\.advertisement).sorted { ($0.name, $0.id) < ($1.name, $1.id) }
    }

    /// The announcements with device id `id` (any case), the most recent first: usually one; more when
    /// something else claims the same id.
    public func advertisements(for id: String) -> [HAPAdvertisement] {
        let wanted = id.uppercased()
        return recentFirst.filter { $0.id == wanted }
    }

    /// Every announcement, the most recent first.
    var recentFirst: [HAPAdvertisement] {
        entries.values.sorted { $0.sequence > $1.sequence }.map(\.advertisement)
    }

    /// Each announcement with device id `id` (any case) that is new or changed, from now on, until
    /// `stop()` (or the caller stops reading).
    public func announcements(for id: String) -> AsyncStream<HAPAdvertisement> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: HAPAdvertisement.self, bufferingPolicy: .bufferingNewest(8))
        guard !stopped else {
            continuation.finish()
            return stream
        }
        let key = id.uppercased()
        let number = nextSubscriber
        nextSubscriber += 1
        subscribers[key, default: [:]][number] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(key, number) }
        }
        return stream
    }

    private func unsubscribe(_ key: String, _ number: Int) {
        subscribers[key]?[number] = nil
        if subscribers[key]?.isEmpty == true { subscribers[key] = nil }
    }

    /// The gateway's browse: tries until the daemon can be reached, reads, and tries again if the
    /// browser ends by itself.
    private func browseUntilStopped() async {
        var told = false
        while !stopped && !Task.isCancelled {
            do {
                let events = try await browser.browse(type: Self.serviceType, waitingForDaemon: true)
                if told { logger.notice("the Avahi daemon can be reached again; browsing for HomeKit accessories") }
                told = false
                unavailableReason = nil
                await read(events)
            } catch {
                unavailableReason = error.description
                if !told {
                    logger.warning(
                        "DNS-SD discovery is off while \(error); paired accessories are reached at their stored addresses"
                    )
                    told = true
                }
            }
            guard !stopped else { return }
            try? await Task.sleep(for: limits.retryInterval)
        }
    }

    private func read(_ events: AsyncStream<ServiceBrowserEvent>) async {
        for await event in events {
            guard !stopped else { return }
            handle(event)
        }
    }

    /// Applies one browser event.
    func handle(_ event: ServiceBrowserEvent) {
        switch event {
        case .found(let instance): found(instance)
        case .removed(let name): removed(name)
        case .unavailable(let reason):
            if !daemon.wasUnavailable {
                logger.warning(
                    daemon.hasBrowsed
                        ? "lost the Avahi daemon (\(reason)); discovery resumes when it is back"
                        : "cannot reach the Avahi daemon (\(reason)); discovery begins when it can be reached, "
                            + "paired accessories are reached at their stored addresses meanwhile")
            }
            daemon.wasUnavailable = true
            if !entries.isEmpty {
                entries = [:]
                listChanged()
            }
        case .browsing:
            if daemon.wasUnavailable { logger.notice("the Avahi daemon is back; browsing for HomeKit accessories") }
            daemon.wasUnavailable = false
            daemon.hasBrowsed = true
            logger.debug("browsing for \(Self.serviceType)")
        }
    }

    private func found(_ instance: ServiceInstance) {
        let existing = entries[instance.name]
        guard existing?.instance != instance else { return }
        let advertisement: HAPAdvertisement
        do {
            advertisement = try HAPAdvertisement(instance)
        } catch {
            if limiter.allows("service:" + instance.name) {
                logger.debug("ignored the \(Self.serviceType) service \(Self.quoted(instance.name)): \(error)")
            }
            if existing != nil { removed(instance.name) }
            return
        }
        if existing == nil, entries.count >= limits.maximumServices {
            if limiter.allows("limit") {
                logger.warning(
                    "more than \(limits.maximumServices) HomeKit services are announced; the others are ignored until some go"
                )
            }
            // A paired accessory (someone listens for its id) takes the place of the least recent of the
            // others, so that a flood cannot hide it.
            guard subscribers[advertisement.id] != nil,
                let oldest = entries.filter({ subscribers[$0.value.advertisement.id] == nil }).min(by: {
                    $0.value.sequence < $1.value.sequence
                })
            else { return }
            entries[oldest.key] = nil
        }
        sequence += 1
        entries[instance.name] = Entry(instance: instance, advertisement: advertisement, sequence: sequence)
        if limiter.allows(advertisement.id) { log(advertisement, new: existing == nil) }
        if let listeners = subscribers[advertisement.id] {
            for continuation in listeners.values { continuation.yield(advertisement) }
        }
        listChanged()
    }

    /// The one line an accessory gets a minute: what it announces, or, for one ready to pair when there
    /// is a `pairingHint`, the command that pairs it.
    private func log(_ advertisement: HAPAdvertisement, new: Bool) {
        let endpoints =
            advertisement.addresses.isEmpty
            ? "no usable address" : advertisement.endpoints.map(\.description).joined(separator: ", ")
        let what = "\(Self.quoted(advertisement.name)) (\(advertisement.id), \(advertisement.category)) at \(endpoints)"
        if let pairingHint, !advertisement.isPaired, !currentPairedIDs().contains(advertisement.id) {
            logger.info("found \(what), not paired: pair it with hap2mqtt pair --id \(advertisement.id)\(pairingHint)")
            return
        }
        logger.debug(
            "\(new ? "found" : "updated") \(what): c#=\(advertisement.configurationNumber.map(String.init) ?? "-") "
                + "s#=\(advertisement.stateNumber.map(String.init) ?? "-") sf=\(advertisement.statusFlags)")
    }

    private func removed(_ name: String) {
        guard let entry = entries.removeValue(forKey: name) else { return }
        if limiter.allows(entry.advertisement.id) {
            logger.debug("\(Self.quoted(name)) (\(entry.advertisement.id)) is no longer announced")
        }
        listChanged()
    }

    /// `name` in double quotes, for log lines.
    static func quoted(_ name: String) -> String { "\"\(name)\"" }
}

extension HAPDiscovery {
    /// The `ServiceBrowser` of this system: Avahi's on Linux; nil where there is none.
    public static func systemBrowser() -> (any ServiceBrowser)? {
        #if canImport(CAvahi)
            return AvahiServiceBrowser()
        #else
            return nil
        #endif
    }
}
