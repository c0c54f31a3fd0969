internal import Foundation
public import Gateway
import HomeModel
public import HomeStore
public import Logging
import Synchronization

/// The web page that `hap2mqtt run` serves (docs/DESIGN.md "Web page"): the accessories with live values
/// and controls, the bridge requests, pairing, health, the live log. It reads and writes only through the
/// `HomeStore` (a write as a `/set` makes it), the `Gateway`'s bridge requests (`Gateway.bridgeRequest`)
/// and run's one `Management` (`Gateway.managementRequest`), so the page and MQTT never disagree. The page itself (HTML, CSS, JavaScript from `web/`) is in the binary.
///
/// Life cycle: `start()` listens, `run()` follows the store's changes into the page's event streams until
/// it is cancelled, `stop()` closes the streams and the server.
public final class WebPage: Sendable {
    let configuration: WebPageConfiguration
    let store: HomeStore
    let gateway: Gateway
    /// Run's one `Management`, the one the MQTT bridge API calls.
    let management: Management
    let feed: LogFeed
    let logger: Logger
    let hub: EventHub
    let live = LiveHome()
    let access: AccessGuard
    private let server = Mutex<HTTPServer?>(nil)
    /// The accessories their options exclude: they have no topics, so the event streams leave out their
    /// values and availability too (`Gateway.exclusions()`).
    private let hidden = Mutex<Set<AccessoryID>>([])

    /// The accessories their options exclude now.
    var excludedAccessories: Set<AccessoryID> { hidden.withLock { $0 } }

    /// A page for `store` and `gateway`, showing the lines `feed` is given; pair, unpair, refresh, the
    /// accessories seen on the network and health go through `management` (the one the gateway has).
    public init(
        configuration: WebPageConfiguration, store: HomeStore, gateway: Gateway, management: Management,
        feed: LogFeed, logger: Logger
    ) {
        self.configuration = configuration
        self.store = store
        self.gateway = gateway
        self.management = management
        self.feed = feed
        self.logger = logger
        hub = EventHub(limit: configuration.limits.eventStreams, queuedEvents: configuration.limits.queuedEvents)
        access = AccessGuard(token: configuration.authToken, host: configuration.host)
    }

    /// The port the page listens on; nil before `start()` and after `stop()`.
    public var port: UInt16? { server.withLock { $0?.port } }

    /// Starts listening (nothing when it already listens: `hap2mqtt run` starts it before the other parts,
    /// so that a port that is taken stops it at once). Logs `web page at http://HOST:PORT/` at `notice`
    /// (never the token).
    /// - Throws: `WebPageError.tokenRequired` for an address other machines can reach without a token,
    ///   `WebPageError.cannotListen` when the address or port cannot be used.
    public func start() throws(WebPageError) {
        guard port == nil else { return }
        if configuration.authToken == nil, !WebPageConfiguration.isLoopback(host: configuration.host) {
            throw .tokenRequired(host: configuration.host)
        }
        let started = try HTTPServer(host: configuration.host, port: configuration.port, limits: configuration.limits) {
            [self] request in await self.answer(request)
        }
        access.listening(on: started.port)
        server.withLock { $0 = started }
        feed.listen { [hub] line in hub.broadcast("log", line.json) }
        let shown = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        logger.notice("web page at http://\(shown):\(started.port)/\(access.requiresToken ? " (token required)" : "")")
    }

    /// Follows the store's changes and the accessories seen on the network into the page's event streams
    /// until cancelled.
    public func run() async {
        let exclusions = await gateway.exclusions()
        hidden.withLock { $0 = exclusions.now }
        await withTaskGroup(of: Void.self) { tasks in
            tasks.addTask { await self.followStore() }
            tasks.addTask { await self.followDiscovered() }
            tasks.addTask { await self.followExclusions(exclusions.changes) }
            tasks.addTask { await self.reportRefusalsEveryMinute() }
        }
    }

    /// The counts of wrong tokens that came after the last report reach the log within a minute.
    private func reportRefusalsEveryMinute() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: LoginThrottle.reportInterval)
            reportRefusals()
        }
    }

    /// Requires `token` from now on (SIGHUP reads the token file again): when it differs, every session of
    /// the old token ends and the next request must carry the new one. Returns whether it differed.
    /// - Throws: `WebPageError.tokenRequired` when `token` is nil and the page listens on an address other
    ///   machines can reach; the old token stays.
    @discardableResult
    public func replaceToken(_ token: String?) throws(WebPageError) -> Bool {
        if token == nil, !WebPageConfiguration.isLoopback(host: configuration.host) {
            throw .tokenRequired(host: configuration.host)
        }
        let changed = access.replaceToken(token)
        if changed { logger.notice("web page: the token changed; every session of the old one has ended") }
        return changed
    }

    private func followStore() async {
        let subscription = await store.subscribe()
        await live.start(unreachable: subscription.unreachable)
        for await changes in subscription.changes {
            await live.apply(changes, at: Date())
            let hidden = hidden.withLock { $0 }
            for event in PageEvent.events(for: changes, hiding: hidden) { hub.broadcast(event.name, event.json) }
        }
    }

    /// An accessory excluded or included again leaves or joins the list, and a renamed one moves in it
    /// (`accessories`: reload it).
    private func followExclusions(_ changes: AsyncStream<Set<AccessoryID>>) async {
        for await excluded in changes {
            hidden.withLock { $0 = excluded }
            hub.broadcast("accessories", "{}")
        }
    }

    /// Closes the event streams and the server; waits for the connections' threads. Idempotent.
    public func stop() {
        feed.listen(nil)
        hub.closeAll()
        let running = server.withLock { s -> HTTPServer? in
            defer { s = nil }
            return s
        }
        running?.stop()
    }
}
