import Foundation
import Gateway
import HAPController
import HomeModel
import HomeStore
import Logging
import MQTT
import SystemSupport
import Web

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `hap2mqtt run`: the gateway in the foreground until SIGINT or SIGTERM.
///
/// Makes the parts (the home store with a provider per paired accessory server, the DNS-SD discovery the
/// providers follow, the MQTT client, the `Gateway`, the pairing watcher) and runs them as one `ServiceGroup` (`services`): the MQTT client
/// connects first, retrying with back-off while the broker is unreachable (a broker that starts after
/// the gateway is normal under systemd or compose). SIGINT or SIGTERM publishes `bridge/state` offline,
/// stops the parts in reverse order and returns 0; SIGHUP reloads the configuration
/// (`ConfigurationReload`); SIGUSR1 and SIGUSR2 are ignored (`SignalAction`).
enum RunCommandRunner {
    static func run(_ context: CommandContext, loggers: Loggers) async -> Int32 {
        let configuration = context.configuration
        let stateDirectory = StateDirectory(path: configuration.homekit.stateDirectory)
        let lock: StateDirectoryLock
        do {
            try stateDirectory.create()
            // Before anything reads or writes there: a second gateway would overwrite this one's files.
            lock = try StateDirectoryLock(stateDirectory)
            // Before anything here writes: what a killed run left half-written is gone, never read.
            let stale = try stateDirectory.removeStaleTemporaryFiles()
            if !stale.isEmpty {
                loggers.program.info(
                    "removed \(stale.count) temporary files a stopped run left in \(stateDirectory.path): \(stale.joined(separator: ", "))"
                )
            }
        } catch {
            StandardStream.write("hap2mqtt: cannot use the state directory: \(error)\n", to: STDERR_FILENO)
            return 1
        }
        // Who this gateway is, for its claim on the base topic (docs/DESIGN.md "Owning the base topic").
        let claim: BaseTopicClaim
        do throws(OwnershipError) {
            claim = BaseTopicClaim(
                instance: try InstanceIdentity.load(from: stateDirectory), clientID: configuration.mqtt.clientID,
                host: ProcessInfo.processInfo.hostName)
        } catch {
            StandardStream.write("hap2mqtt: \(error)\n", to: STDERR_FILENO)
            return 1
        }
        // Held until run returns; the kernel drops it if the process dies first.
        defer { withExtendedLifetime(lock) {} }
        let signals = await SignalHandler(SignalAction.handled)
        defer { signals.cancel() }

        let store = HomeStore(configuration: configuration.homeStoreConfiguration, logger: loggers.homeStore)
        let commandOptions = context.options.configPath.map { " --config \(AccessoryProviders.shellQuoted($0))" } ?? ""
        let discovery = DiscoveryWiring.make(
            configuration, stateDirectory: stateDirectory, commandOptions: commandOptions, logger: loggers.discovery)
        let made = await AccessoryProviders.make(
            configuration, stateDirectory: stateDirectory, configurationFile: context.options.configPath,
            discovery: discovery,
            logger: loggers.hap)
        // A standby without a pairing of its own would take the base topic over with an empty home.
        if configuration.standby, made.pairings.isEmpty {
            StandardStream.write(
                "hap2mqtt: standby is true, but \(stateDirectory.path) holds no pairing: a standby needs its own pairing on every accessory of the gateway it stands by for (hap2mqtt export --aiohomekit FILE there, hap2mqtt import --aiohomekit FILE here); nothing was published\n",
                to: STDERR_FILENO)
            return 1
        }
        let controller = made.controller
        let watcher = PairingWatcher(
            store: store, stateDirectory: stateDirectory, pairings: made.pairings, problems: made.problems,
            logger: loggers.program, makeProvider: made.make,
            isFollowedAddress: { controller.isFollowedAddress(of: $0) })
        let mqtt: MQTTClient
        do {
            mqtt = try MQTTClient(
                configuration: configuration.mqttClientConfiguration(claim: claim), logger: loggers.mqtt)
        } catch {
            StandardStream.write("hap2mqtt: \(error)\n", to: STDERR_FILENO)
            return 1
        }
        // The operations the bridge API (and the command line) share; a pair or unpair is taken up at once.
        let management = Management(
            pairing: HAPAccessoryPairing(
                controller: controller, discovery: discovery, discoveryLogger: loggers.discovery,
                backupMaker: "hap2mqtt \(Hap2mqtt.version)"),
            discovery: discovery, options: AccessoryOptionsFile(directory: stateDirectory), logger: loggers.program,
            pairingsChanged: { await watcher.check() })
        let gateway = Gateway(
            configuration: configuration.gatewayConfiguration(stateDirectory: stateDirectory, claim: claim),
            store: store, mqtt: mqtt,
            management: management, logging: .program, logger: loggers.gateway)
        await management.attach(gateway)
        await watcher.onPairingRemoved { await gateway.forgetPairing(serverID: $0) }
        let stop = StopRequest()
        await gateway.onClaimLost { stop.request(.claimLost($0)) }
        let monitor = HealthMonitor(stateDirectory: stateDirectory, logger: loggers.program) { [mqtt, gateway] in
            HealthMonitor.Sample(brokerConnected: mqtt.isConnected, homeSynced: await gateway.hasPublishedHome)
        }
        let webPage = configuration.frontendConfiguration.map {
            WebPage(
                configuration: $0, store: store, gateway: gateway, management: management, feed: .program,
                logger: loggers.web)
        }
        // The page listens before anything connects: a port that is taken stops run here with one line,
        // not after the broker was reached (or never, while it cannot be). Its service stops it.
        if let webPage {
            do throws(WebPageError) {
                try webPage.start()
            } catch {
                StandardStream.write("hap2mqtt: cannot start the web page: \(error)\n", to: STDERR_FILENO)
                return 1
            }
        }
        defer { webPage?.stop() }
        let group = ServiceGroup(
            services(
                mqtt: mqtt, brokerURL: configuration.mqtt.url.description, store: store, providers: made.providers,
                gateway: gateway, watcher: watcher, monitor: monitor, webPage: webPage, stop: stop,
                logger: loggers.program,
                discovery: discovery.map(DiscoveryWiring.service), standby: configuration.standby),
            logger: loggers.program)

        let reload = ConfigurationReload(
            running: configuration, options: context.options, environment: ProcessInfo.processInfo.environment,
            store: store,
            gateway: gateway, webPage: webPage, logger: loggers.program)
        let failure = await withTaskGroup(of: Void.self) { tasks -> ServiceStartError? in
            tasks.addTask {
                await SignalAction.follow(
                    signals.signals, stop: stop, reload: { await reload.reload() }, logger: loggers.program)
            }
            defer { signals.cancel() }  // ends the task above
            do throws(ServiceStartError) {
                try await group.run(until: stop)
                return nil
            } catch {
                return error
            }
        }
        if case .claimLost(let reason) = stop.reason {
            StandardStream.write("hap2mqtt: \(reason)\n", to: STDERR_FILENO)
            return 1
        }
        guard let failure else { return 0 }
        StandardStream.write("hap2mqtt: \(failure)\n", to: STDERR_FILENO)
        return 1
    }

    /// The services of `run`, in the order they start; they stop in reverse. A new part (the web page) is
    /// one more line here.
    ///
    /// The health monitor comes first, so that systemd's watchdog is fed and `health.json` says what is
    /// awaited while the MQTT client waits for the broker, and it stops last. It says `STOPPING=1` as
    /// soon as `stop` is requested, before the others stop.
    /// - Parameter discovery: DNS-SD browsing, when on; before the home store, whose providers follow it.
    static func services(
        mqtt: MQTTClient, brokerURL: String, store: HomeStore, providers: [any AccessoryProvider], gateway: Gateway,
        watcher: PairingWatcher, monitor: HealthMonitor, webPage: WebPage? = nil, stop: StopRequest, logger: Logger,
        discovery: Service? = nil, standby: Bool = false
    ) -> [Service] {
        var services = [
            Service(
                "health monitor", start: { await monitor.start() },
                run: { if await stop.wait() != nil { await monitor.stopping() } },
                stop: { await monitor.stopping() }),
            Service(
                "MQTT client", awaiting: "the broker could be reached",
                start: { () async throws(ServiceStartError) in
                    // The base topic is claimed before the connection that carries the claim in its last will.
                    try await claim(for: gateway, url: brokerURL, standby: standby, logger: logger)
                    try await connect(mqtt, url: brokerURL, logger: logger)
                    await gateway.holdClaim()
                },
                stop: { await mqtt.disconnect() }),
            discovery,
            Service(
                "home store",
                start: {
                    for provider in providers { await store.add(provider) }
                    await store.start()
                },
                stop: { await store.stop() }),
            Service("gateway", run: { await gateway.run() }, stop: { await gateway.stop() }),
            Service("pairing watcher", run: { await watcher.run() }),
            Service("memory trimmer", run: { await MemoryTuning.returnFreedMemory() }),
        ].compactMap { $0 }
        if let webPage {
            // Last: the page reads the store and the gateway, which run by then, and it stops first.
            services.append(
                Service(
                    "web page",
                    start: { () throws(ServiceStartError) in
                        do throws(WebPageError) {
                            try webPage.start()
                        } catch {
                            throw ServiceStartError(service: "web page", reason: error.description)
                        }
                    },
                    run: { await webPage.run() }, stop: { webPage.stop() }))
        }
        return services
    }

    /// Claims the base topic for `gateway` (`Gateway.claimBaseTopic()`), retrying with back-off (1 s
    /// doubling to 30 s) while the broker cannot be read. A `standby` gateway that finds another holding
    /// the base topic stands by: it reads the claim again every `standbyPoll` until the other's claim is
    /// released (its last will, or a clean stop), and takes over then; nothing else has started by then
    /// (no HAP session, nothing published).
    /// - Throws: `ServiceStartError` when another gateway holds the base topic (and this one is no
    ///   standby) or its claim is unreadable (one line naming the other, or what is wrong), or when
    ///   cancelled.
    private static func claim(for gateway: Gateway, url: String, standby: Bool, logger: Logger)
        async throws(ServiceStartError)
    {
        var delay = Duration.seconds(1)
        var standingBy: BaseTopicClaim?
        while true {
            var wait = delay
            do throws(OwnershipError) {
                _ = try await gateway.claimBaseTopic()
                return
            } catch .brokerNotRead(let reason) {
                logger.error(
                    "cannot connect to the MQTT broker at \(url) to read the claim on the base topic: \(reason); retrying in \(delay.inSeconds) s"
                )
                delay = min(delay * 2, .seconds(30))
            } catch .claimedByAnother(let base, let owner) where standby {
                if standingBy != owner {
                    logger.notice(
                        "standing by: the base topic \(base)/ is held by \(owner); taking it over when its claim is released"
                    )
                    standingBy = owner
                }
                wait = standbyPoll
            } catch {
                throw ServiceStartError(service: "gateway", reason: error.description)
            }
            do {
                try await Task.sleep(for: wait)
            } catch {
                throw ServiceStartError(service: "MQTT client", reason: "stopped before the broker could be reached")
            }
        }
    }

    /// How often a standby reads the claim it waits for: with `mqtt.keepalive: 5` on the gateway it
    /// stands by for, the broker releases that claim within 7.5 s of its death, and the standby is
    /// online within 10 s.
    static let standbyPoll = Duration.milliseconds(500)

    /// Connects, retrying with back-off (1 s doubling to 30 s) until it works or the task is cancelled
    /// (a stop request).
    /// - Throws: `ServiceStartError` only when cancelled.
    private static func connect(_ mqtt: MQTTClient, url: String, logger: Logger) async throws(ServiceStartError) {
        var delay = Duration.seconds(1)
        while true {
            do {
                try await mqtt.connect()
                return
            } catch {
                logger.error("cannot connect to the MQTT broker at \(url): \(error); retrying in \(delay.inSeconds) s")
            }
            do {
                try await Task.sleep(for: delay)
            } catch {
                throw ServiceStartError(service: "MQTT client", reason: "stopped before the broker could be reached")
            }
            delay = min(delay * 2, .seconds(30))
        }
    }
}

extension RunCommand {
    /// Runs the gateway until it is stopped (`RunCommandRunner`).
    func execute(_ context: CommandContext, loggers: Loggers) async -> Int32 {
        await RunCommandRunner.run(context, loggers: loggers)
    }
}
