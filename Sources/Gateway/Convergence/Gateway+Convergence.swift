import HomeModel
import HomeStore
import JSON
import MQTT

/// The retained state on the broker converges to the home (docs/DESIGN.md "Topics", rules): at start and
/// after every connection the gateway reads what the broker holds under its topics and clears what it made
/// that the home no longer has, whatever happened while it was not looking (an accessory removed while
/// the gateway was stopped, a rename cut short by a kill, clears lost while the broker was away). At start
/// it also reports the accessories that the last run's `bridge/accessories` listed and the home no longer
/// has, and fills the JSON of accessories without values (their server is down) from their retained
/// state topics.
extension Gateway {
    /// Reads what the broker holds retained under the gateway's topics; nil when it cannot now (logged:
    /// the next connection tries again).
    func scanBroker() async -> RetainedScan? {
        var filters = [topics.base + "/#"]
        filters.append(configuration.homeAssistant.prefix + "/+/+/+/config")
        filters.append(configuration.homeAssistant.prefix + "/device/+/config")
        // Outside the base topic, so that subscribers to `<base>/#` never see it.
        let marker = "\(topics.base)-scan/\(UInt64.random(in: 0...UInt64.max))"
        let base = topics.base
        let prefix = configuration.homeAssistant.prefix
        let legacy = legacyNodes()
        do throws(MQTTError) {
            return RetainedScan(
                try await mqtt.retainedMessages(
                    matching: filters, endMarker: marker, timeout: Gateway.scanTimeout,
                    keepingPayloadOf: {
                        RetainedScan.keepsPayload(of: $0, base: base)
                            || RetainedScan.configNode(of: $0, prefix: prefix).map(legacy.contains) == true
                    }))
        } catch {
            logger.warning(
                "cannot read the retained topics on the broker: \(error); stale topics are looked for again at the next connection"
            )
            return nil
        }
    }

    /// How long reading the retained topics may take.
    static let scanTimeout = Duration.seconds(10)

    /// Queues an empty retained message for every topic in `scan` that this gateway made and that belongs
    /// to nothing it publishes now, except those of accessories on `unlisted` servers (whose accessory
    /// list is unknown: `HomeStore.serversWithoutAccessoryList`), found by the slugs and ids the slug map
    /// keeps for them. Returns how many.
    func clearStale(_ scan: RetainedScan, keepingServers unlisted: Set<String> = []) -> Int {
        let expected = expectedRetainedTopics()
        let kept = index.knownAccessories.filter { unlisted.contains($0.serverID) && index.layouts[$0] == nil }
        let keptSlugs = Set(kept.compactMap { index.registeredSlug(of: $0) })
        let nodes = Set(
            index.knownAccessories.filter { !kept.contains($0) }.map {
                HomeAssistantDiscovery.nodeID(of: $0, base: topics.base)
            } + [bridgeDiscoveryIdentifier])
        let legacy = legacyNodes(keeping: Set(kept))
        // A migration under way holds both formats' configs on purpose; its own last step clears the old.
        let prefix = configuration.homeAssistant.prefix + "/"
        let skipsConfigs = isMigratingDiscovery
        var cleared = 0
        for topic in inClearingOrder(scan.topics)
        where !expected.contains(topic)
            && (isMadeByGateway(topic, nodes: nodes) || isLegacyConfig(topic, nodes: legacy, in: scan))
            && !isKept(topic, slugs: keptSlugs) && !(skipsConfigs && topic.hasPrefix(prefix))
        {
            outbox.clear(topic)
            cleared += 1
        }
        if isDiscoveredListStale(scan) {
            outbox.clear(topics.bridgeDiscovered)
            cleared += 1
        }
        return cleared
    }

    /// Whether the broker holds a `bridge/discovered` list that nobody keeps up to date: one an earlier run
    /// left while this one has no discovery (`homekit.discovery` off, or no DNS-SD browser on the system).
    /// A user would take it for the accessories on the network now.
    private func isDiscoveredListStale(_ scan: RetainedScan) -> Bool {
        accessoryDiscovery == nil && scan.topics.contains(topics.bridgeDiscovered)
    }

    /// The node ids that the known accessories (but `kept`) had before base topics were told apart
    /// (`HomeAssistantDiscovery.legacyNodeID(of:)`), under a base topic other than the default; none under
    /// the default, whose node ids are still those.
    private func legacyNodes(keeping kept: Set<AccessoryID> = []) -> Set<String> {
        guard topics.base != HomeAssistantDiscovery.defaultBase else { return [] }
        return Set(index.knownAccessories.filter { !kept.contains($0) }.map(HomeAssistantDiscovery.legacyNodeID(of:)))
    }

    /// Whether `topic` is a discovery config of one of the legacy `nodes` that this gateway published: its
    /// availability names this base topic's `bridge/state`. A gateway with the default base topic that
    /// pairs the same accessory publishes configs of the same node id, which are not this one's to clear.
    private func isLegacyConfig(_ topic: String, nodes: Set<String>, in scan: RetainedScan) -> Bool {
        guard !nodes.isEmpty, let node = RetainedScan.configNode(of: topic, prefix: configuration.homeAssistant.prefix),
            nodes.contains(node), let payload = scan.payloads[topic],
            let availability = (try? JSONValue(parsing: payload))?["availability"]?.arrayValue
        else { return false }
        return availability.contains { $0["topic"]?.stringValue == topics.bridgeState }
    }

    /// Whether `topic` lies under the base topic at one of `slugs`.
    private func isKept(_ topic: String, slugs: Set<String>) -> Bool {
        guard !slugs.isEmpty, topic.hasPrefix(topics.base + "/") else { return false }
        let rest = topic.dropFirst(topics.base.count + 1)
        return slugs.contains(String(rest.prefix { $0 != "/" }))
    }

    /// Marks offline the accessories of `unlisted` servers that the broker still shows online (`scan`): an
    /// earlier run published them, this one cannot reach their server and has no usable list of them, so
    /// their topics stay (`clearStale`) but must not claim a state that nobody keeps up to date. Their
    /// server's first sync publishes them again. Returns their number.
    func markUnlistedOffline(_ scan: RetainedScan, servers unlisted: Set<String>) -> Int {
        var marked = 0
        for id in index.knownAccessories.sorted()
        where unlisted.contains(id.serverID) && index.layouts[id] == nil && !isExcluded(id) {
            guard let slug = index.registeredSlug(of: id), scan.topics.contains(topics.availability(slug)) else {
                continue
            }
            outbox.retain(topics.availability(slug), "offline", qos: .atLeastOnce)
            marked += 1
        }
        return marked
    }

    /// Emits `accessory_removed` for each accessory that the last run's `bridge/accessories` (in `scan`)
    /// listed and the home no longer has: it went while the gateway was stopped. Accessories of `unlisted`
    /// servers are not reported: their server's list is unknown, not empty.
    func reportRemoved(_ scan: RetainedScan, keepingServers unlisted: Set<String> = []) {
        for listed in scan.listedAccessories(on: topics.bridgeAccessories)
        where index.layouts[listed.id] == nil && !unlisted.contains(listed.id.serverID) {
            emit(.accessoryRemoved(id: listed.id, slug: listed.slug, name: listed.name))
            logger.info(
                "accessory \(listed.name) is gone since the last run; its topics are cleared",
                ["accessory": listed.id.description])
        }
    }

    /// Puts the values retained on the broker into the JSON of `accessory` where the store has none (its
    /// server could not be reached at start): the JSON then shows what its state topics still show.
    func fillJSON(of accessory: Accessory, from scan: RetainedScan) {
        guard let entry = published.index(forKey: accessory.id), let layout = index.layouts[accessory.id] else {
            return
        }
        for (service, laid) in zip(accessory.services, layout.services) {
            for (c, topic) in zip(service.characteristics, laid.characteristics)
            where c.value == nil && topic.isReadable && !topic.isStateless {
                if let json = scan.jsonValue(on: topic.stateTopic, format: c.format) {
                    published.values[entry].json.set(json, iid: c.iid)
                }
            }
        }
    }

    /// Whether this run must leave what an earlier run published alone (`leavesEarlierRun`): the state
    /// directory had no slug map at start, yet the broker's `bridge/accessories` lists accessories this run
    /// does not have. Such a start is a first start with a state directory other than the one used before
    /// (a volume not mounted, a typo in `homekit.state_dir`) more often than a deliberate fresh start, and
    /// clearing would take every state topic from its consumers. Decided once, at start; a later start
    /// with this directory, which then has its slug map, converges as usual.
    func leavesEarlierRun(_ scan: RetainedScan) -> Bool {
        guard index.slugMapWasAbsent else { return false }
        let listed = scan.listedAccessories(on: topics.bridgeAccessories)
        parts.convergence.leavesEarlierRun = listed.contains { index.layouts[$0.id] == nil && !isExcluded($0.id) }
        return parts.convergence.leavesEarlierRun
    }

    /// After a connection: reads the broker and clears the stale topics it holds.
    func converge() async {
        guard !parts.convergence.leavesEarlierRun, let scan = await scanBroker(), isReady, !isStopped else { return }
        let cleared = clearStale(scan, keepingServers: await store.serversWithoutAccessoryList)
        guard cleared > 0 else { return }
        logger.info("cleared \(cleared) retained topics on the broker that no longer belong to the home")
        flush()
    }

    /// Every retained topic the gateway publishes now or keeps (the state topics of values not read yet
    /// keep the last run's), and the discovery configs it published.
    private func expectedRetainedTopics() -> Set<String> {
        var expected = Set(outbox.retained.keys)
        for (id, layout) in index.layouts {
            expected.formUnion(retainedTopics(of: layout))
            expected.formUnion(published[id]?.topics ?? [])
        }
        return expected
    }

    /// Whether this gateway made `topic`: an accessory's topic under the base topic (`bridge/…` is left
    /// alone: other parts publish there; `bridge/discovered` has its own rule), or a discovery config, per
    /// entity or per device, whose `node_id` is one of `nodes`.
    private func isMadeByGateway(_ topic: String, nodes: Set<String>) -> Bool {
        let base = topics.base + "/"
        if topic.hasPrefix(base) { return !topic.hasPrefix(base + "bridge/") }
        return RetainedScan.configNode(of: topic, prefix: configuration.homeAssistant.prefix).map(nodes.contains)
            == true
    }

    /// The retained topics an accessory's layout gives it, whether published this run or not: its
    /// availability, its JSON, the state topic of every readable characteristic with a state, its `hs` topics,
    /// a camera's snapshot topic (the last snapshot stays until the next one replaces it).
    func retainedTopics(of layout: AccessoryLayout) -> Set<String> {
        var result: Set<String> = [topics.availability(layout.slug), topics.accessory(layout.slug)]
        for c in layout.characteristics where c.isReadable && !c.isStateless { result.insert(c.stateTopic) }
        for colour in layout.hsTopics { result.insert(colour.stateTopic) }
        if let snapshot = layout.snapshotTopic { result.insert(snapshot) }
        return result
    }
}
