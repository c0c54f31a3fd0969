import HomeModel
public import HomeStore
import JSON
public import Logging
public import MQTT
import SystemSupport

/// The MQTT side of hap2mqtt: maps the home store to the topics of docs/DESIGN.md and `/set` commands back
/// to awaited accessory writes.
///
/// It publishes nothing but its claim on the base topic (`bridge/state` offline, the claim held:
/// `Gateway+Ownership.swift`) and takes no command before the store has finished its first sync (lesson 1);
/// it then publishes every retained topic, follows the store's changes, and after every broker reconnect
/// republishes everything it holds retained, because a broker without persistence loses retained
/// messages. It never talks to an accessory: every read and write goes through the `HomeStore`.
///
/// It runs on the store's executor (SE-0392), so that a change reaches the broker in the step in which
/// the store made it, and a command reaches the store and its answer comes back, without a task
/// hand-off: the store hands it batches and write outcomes synchronously, and calls between the two
/// never suspend.
///
/// It is a small core and feature parts (`GatewayParts`): the core holds what every part shares (the
/// store, the MQTT client, the `TopicIndex` of where each topic leads, what is published per accessory,
/// and the `Outbox` through which each step publishes, in one call); each part holds its own state, and
/// its code lives in its folder: `Commands/`, `Following/`, `HomeAssistant/`, `Management/`, `Health/`,
/// `Convergence/`, `Scenes/`. The actor routes messages and change batches to them.
public actor Gateway {
    var configuration: GatewayConfiguration
    let store: HomeStore
    let mqtt: any MQTTClientProtocol
    let topics: TopicScheme
    let logger: Logger
    /// Where each topic leads, and each accessory's slug.
    var index: TopicIndex
    /// What is published for each accessory besides its topics.
    var published: [AccessoryID: PublishedAccessory] = [:]
    /// What this step publishes, and what is held retained.
    var outbox = Outbox()
    /// What holds a flush back or schedules one.
    var flushing = FlushState()
    /// Ready, stopped, and the tasks started.
    var life = GatewayLife()
    /// The feature parts, each with its own state.
    var parts: GatewayParts

    /// The store's executor.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { store.unownedExecutor }

    /// A gateway that publishes the store's home through `mqtt` (an `MQTTClient`, or a test's fake) once
    /// `run()` is called (`mqtt` connected or not), logging through `logger` (its caller's, labelled
    /// `gateway` in the program).
    /// - Parameters:
    ///   - management: the operations behind the `pair` and `unpair` requests; nil answers them with an
    ///     error. `hap2mqtt run` `attach`es this gateway to it.
    ///   - logging: the log lines to publish on `bridge/logging`; nil publishes none.
    public init(
        configuration: GatewayConfiguration, store: HomeStore, mqtt: any MQTTClientProtocol,
        management: Management? = nil, logging: BridgeLogging? = nil,
        logger: Logger
    ) {
        self.logger = logger
        self.configuration = configuration
        self.store = store
        self.mqtt = mqtt
        let topics = TopicScheme(base: configuration.baseTopic)
        self.topics = topics
        let index = TopicIndex(
            slugs: SlugRegistry(directory: configuration.stateDirectory, logger: logger), scheme: topics)
        self.index = index
        self.parts = GatewayParts(
            commands: CommandsPart(
                responseTopics: ResponseTopicPolicy(
                    topics: topics, discoveryPrefix: configuration.homeAssistant.prefix,
                    statusTopic: configuration.homeAssistant.statusTopic,
                    allowed: configuration.responseTopics
                        ?? [GatewayConfiguration.defaultResponseTopicFilter(baseTopic: configuration.baseTopic)])),
            homeAssistant: HomeAssistantPart(
                discovery: HomeAssistantDiscovery(
                    configuration: configuration.homeAssistant, topics: topics, version: configuration.version),
                startingIn: configuration.stateDirectory, isNewInstallation: index.slugMapWasAbsent, logger: logger),
            management: ManagementPart(management: management), health: HealthPart(logging: logging),
            ownership: OwnershipPart(claim: configuration.claim),
            scenes: ScenesPart(directory: configuration.stateDirectory, logger: logger))
    }

    /// Waits for the store's first sync, publishes everything, subscribes to the command topics, and then
    /// follows the store's changes and the incoming commands until `stop()`.
    public func run() async {
        await store.waitUntilReady()
        guard !isStopped else { return }
        // What the last run left on the broker, read before anything is published (Gateway+Convergence.swift).
        let scan = await scanBroker()
        // Subscribed before bridge/state says online, so that a command sent the moment it does is taken.
        await subscribeToCommands()
        // The store calls this on its executor, which is this actor's.
        let subscription = await store.subscribe(delivering: { [weak self] batch in
            self?.assumeIsolated { $0.receive(batch) }
        })
        // The gateway's own device first: Home Assistant links an accessory's device to it (`via_device`)
        // only when it knows it already.
        publishBridgeDiscovery()
        for accessory in subscription.snapshot where !isExcluded(accessory.id) {
            register(accessory, reachable: subscription.unreachable[accessory.id] == nil, filling: scan)
        }
        isReady = true
        applyEarlyBatches()
        // Before the stale topics are cleared, which keeps what the outbox holds retained.
        await publishScenesAndGroups()
        publishHS()
        outbox.retain(topics.bridgeInfo, bridgeInfoJSON(homes: await store.homes), qos: .atLeastOnce)
        await publishHealth()
        if let scan, leavesEarlierRun(scan) {
            logger.warning(
                "the state directory \(configuration.stateDirectory?.path ?? "") holds no slug map (slugs.json), but the broker holds topics of accessories an earlier run published under \(topics.base)/: they are left as they are, in case this is not the state directory used before (a volume not mounted, another homekit.state_dir); with the right one they are published again, and a start with this one after it has its slug map clears what no longer belongs"
            )
        } else if tookBaseTopicOver {
            // Another instance published what is there: this run clears none of it (Gateway+Ownership.swift).
            leaveEarlierRunAlone()
        } else if let scan {
            let unlisted = await store.serversWithoutAccessoryList
            reportRemoved(scan, keepingServers: unlisted)
            let cleared = clearStale(scan, keepingServers: unlisted)
            if cleared > 0 {
                logger.info("cleared \(cleared) retained topics on the broker that no longer belong to the home")
            }
            let marked = markUnlistedOffline(scan, servers: unlisted)
            if marked > 0 {
                logger.warning(
                    "kept the topics of \(marked) accessories, shown offline, whose accessory server cannot be reached and whose cached accessory list is missing or damaged: \(unlisted.sorted().joined(separator: ", "))"
                )
            }
        }
        await publishAccessoryList()
        await publishDiscovered()
        // Last, so that `online` tells a consumer every retained topic is there, and no stale one.
        outbox.retain(topics.bridgeState, bridgeStatePayload(online: true), qos: .atLeastOnce)
        // The slugs of the accessories just registered, on disk before their topics go out.
        while index.hasUnsavedSlugs || slugWrite != nil { await saveSlugs() }
        flush()
        hasPublishedHome = true
        logger.info("published \(published.count) accessories under \(topics.base)/")
        startDiscoveryFormat()

        mqtt.onConnect { [weak self] reconnect in
            guard reconnect, let self, await self.keepsClaim() else { return }
            await self.republishAll()
            await self.converge()
        }
        tasks.append(Task { [weak self] in await self?.takeSnapshotsPeriodically() })
        mqtt.attachReader { [weak self] in
            guard let self else { return }
            if #available(macOS 26.0, *) {
                Task.immediate { await self.readMessages() }
            } else {
                Task { await self.readMessages() }
            }
        }
        tasks.append(Task { [weak self] in await self?.followHealth() })
        tasks.append(Task { [weak self] in await self?.followDiscovered() })
        tasks.append(Task { [weak self] in await self?.followLogging() })
        // Carries no batches; it ends when the store stops.
        for await _ in subscription.changes {}
    }

    /// Takes the broker's waiting messages, in order, until none waits: each is handled at once, or joins
    /// its accessory server's lane when it waits for an accessory (`handle(_:)`, `CommandLanes`), so no
    /// message waits here for an accessory's answer. Started by the MQTT client on
    /// libmosquitto's thread when a message finds the gateway idle: `Task.immediate` enters this actor,
    /// whose executor is the store's (`StoreExecutor`), on that thread at once when the store is idle, so
    /// a command is handled without waiting for a pool thread to wake up (hap2mqtt-bench command).
    private func readMessages() async {
        while !isStopped, let message = mqtt.takeMessage() {
            await handle(message)
        }
    }

    /// Publishes `offline` on every accessory's availability and then `bridge/state` offline (awaited, so
    /// that all of it reaches the broker before the connection closes), and stops following the store and
    /// the broker. The caller disconnects the MQTT client afterwards. (The last will can only cover
    /// `bridge/state`; after a crash the accessories' availability keeps its last value.)
    public func stop() async {
        guard !isStopped else { return }
        isStopped = true
        mqtt.detachReader()
        for task in tasks { task.cancel() }
        stopCommands()
        stopExclusionFollowers()
        await endDiscoveryMigrationStep()
        // Another gateway holds the base topic now: its bridge/state and availability are its own to say.
        guard holdsBaseTopic else { return }
        let offline = offlineState
        // A broker that is down, or never acknowledges, must not keep the process from stopping (a QoS 1
        // message waits for the next connection). The broker that lost us publishes the last will.
        guard mqtt.isConnected else {
            logger.warning("the broker is not reachable: bridge/state offline is left to the last will")
            return
        }
        let availability = index.layouts.values.map(\.slug).sorted().map {
            MQTTMessage(topic: topics.availability($0), string: "offline", qos: .atLeastOnce, retain: true)
        }
        let mqtt = self.mqtt
        let outcome = await withDeadline(Gateway.offlineTimeout) { () async -> MQTTError? in
            do throws(MQTTError) {
                // In order on one connection: the broker's acknowledgement of bridge/state covers them all.
                try mqtt.publish(availability)
                try await mqtt.publishAndWait(offline)
                return nil
            } catch {
                return error
            }
        }
        switch outcome {
        case .none:
            logger.warning(
                "the broker did not acknowledge the offline availability and bridge/state within \(Gateway.offlineTimeout)"
            )
        case .some(.some(let error)):
            logger.warning("could not publish offline on the availability topics and bridge/state: \(error)")
        case .some(.none): break
        }
    }

    /// How long `stop()` waits for the broker to acknowledge `bridge/state` offline.
    static let offlineTimeout = Duration.seconds(3)

    private func subscribeToCommands() async {
        var delay = Duration.milliseconds(500)
        while !isStopped {
            do {
                var filters = topics.commandFilters
                if configuration.homeAssistant.discovery { filters.append(configuration.homeAssistant.statusTopic) }
                // Retain As Published: a command published retained arrives marked so even live, and is
                // ignored like the replay it would become (MQTT 5; with 3.1.1 only replays are marked).
                try await mqtt.subscribe(filters, qos: .atLeastOnce, retainAsPublished: true)
                return
            } catch {
                logger.warning("cannot subscribe to the command topics yet: \(error); retrying")
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(30))
            }
        }
    }

    /// After a broker reconnect: `bridge/state` online first, then the discovery configs, then every other
    /// retained message the gateway holds.
    func republishAll() async {
        guard isReady, !isStopped else { return }
        let messages = await retainedInOrder()
        guard !isStopped else { return }
        logger.info("connected to the broker again; republishing \(messages.count) retained topics")
        send(messages)
    }
}
