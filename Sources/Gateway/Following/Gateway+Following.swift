import HomeModel
import HomeStore
import MQTT

/// Following the store: each batch of changes becomes the messages it causes, sent in one step. The
/// store delivers a value once, when it changed (a confirmed write and a read on request included), so
/// whatever value arrives is published.
extension Gateway {
    /// Applies a batch of store changes at once (called by the store, on its executor); before the home
    /// is published, keeps it for `applyEarlyBatches()`.
    func receive(_ batch: [HomeChange]) {
        guard !isStopped else { return }
        guard isReady else {
            parts.following.earlyBatches.append(batch)
            return
        }
        apply(batch)
    }

    /// Applies the batches delivered before the home was published, in order.
    func applyEarlyBatches() {
        for batch in parts.following.earlyBatches { apply(batch) }
        parts.following.earlyBatches = []
    }

    /// Applies one batch of store changes; every message it causes goes out in this step. What needs the
    /// store's accessories (a renamed accessory, the accessory list) follows in a task of its own.
    func apply(_ batch: [HomeChange]) {
        // In the order of their first change; an accessory is listed when its JSON turns stale, so once.
        var changedJSON: [AccessoryID] = []
        var renamed = Set<AccessoryID>()
        var listChanged = false
        var confirmsWrite = false
        for change in batch {
            switch change {
            case .valueChanged(let address, let value, let source):
                if source == .write { confirmsWrite = true }
                if let outcome = publishValue(address, value, source: source, recordingJSON: false) {
                    if outcome.madeJSONStale { changedJSON.append(address.accessory) }
                    if outcome.isAccessoryName { renamed.insert(address.accessory) }
                }
            case .accessoryAdded(let accessory):
                guard !isExcluded(accessory.id) else { continue }
                register(accessory, reachable: true)
                emit(
                    .accessoryAdded(
                        id: accessory.id, slug: index.layouts[accessory.id]?.slug ?? "", name: accessory.name))
                listChanged = true
            case .accessoryRemoved(let accessory):
                if let slug = unregister(accessory.id) {
                    emit(.accessoryRemoved(id: accessory.id, slug: slug, name: accessory.name))
                }
                listChanged = true
            case .accessoryUpdated(let old, let new):
                update(old: old, new: new)
                if published[new.id]?.markJSONStale() == true { changedJSON.append(new.id) }
                listChanged = true
            case .reachabilityChanged(let id, let reachable, let reason):
                guard let slug = index.layouts[id]?.slug, let name = published[id]?.name else { continue }
                published[id]?.reachable = reachable
                retain(topics.availability(slug), reachable ? "online" : "offline", qos: .atLeastOnce, for: id)
                emit(.availability(id: id, slug: slug, online: reachable, reason: reason))
                logger.info(
                    "accessory \(name) is \(reachable ? "online" : "offline")\(reason.map { ": \($0)" } ?? "")",
                    ["accessory": id.description])
                listChanged = true
            }
        }
        followGroups(batch)
        if confirmsWrite {
            // A confirmed write: its writer's answer follows in this same job (the store answers right after
            // delivering), so state, accessory JSON and result leave together, in one hand-over to the MQTT
            // client; the flush after this job sends them should no answer come.
            recordJSON(of: batch)
            for id in changedJSON { publishStaleAccessoryJSON(id) }
            flushAfterThisJob()
        } else {
            // The characteristic messages leave before the accessory JSON is made (the values' JSON text
            // included): a lone change reaches its topic's subscribers sooner, and a burst costs one more
            // hand-over to the MQTT client.
            flush()
            recordJSON(of: batch)
            for id in changedJSON { publishStaleAccessoryJSON(id) }
            flush()
        }
        if parts.following.followUp.add(renamed: renamed, listChanged: listChanged) {
            Task { [weak self] in await self?.doFollowUp() }
        }
    }

    /// Records the batch's values in their accessories' JSON, in the batch's order, as `publishValue`
    /// published them.
    private func recordJSON(of batch: [HomeChange]) {
        for change in batch {
            guard case .valueChanged(let address, let value?, _) = change,
                let entry = published.index(forKey: address.accessory)
            else { continue }
            published.values[entry].recordJSON(iid: address.iid) { value.jsonText }
        }
    }

    /// Publishes what batches left for later: renamed accessories, then the accessory list.
    private func doFollowUp() async {
        var (renamed, listChanged) = parts.following.followUp.take()
        guard !isStopped else { return }
        for id in renamed {
            // The displayed name follows the Name characteristic unless the configuration names the accessory.
            guard let accessory = await store.accessory(id), let old = published[id]?.name, accessory.name != old,
                let layout = index.layouts[id]
            else { continue }
            published[id]?.name = accessory.name
            emit(.accessoryRenamed(id: id, slug: layout.slug, from: old, to: accessory.name))
            // Home Assistant's device name follows (unless the user renamed the device there).
            publishDiscovery(accessory, layout)
            listChanged = true
        }
        if listChanged {
            await publishAccessoryList()
            await publishHealthIfServersChanged()
        }
        flush()
    }

    /// What publishing a value did, for `apply(_:)`.
    struct PublishedValue {
        /// The accessory JSON was up to date before: the accessory is to be listed for republishing it.
        var madeJSONStale: Bool
        /// The value is the accessory's Name.
        var isAccessoryName: Bool
    }

    /// Publishes a characteristic's value. Stateless characteristics (button presses) go out unretained
    /// and only for real events, so a reconnect or a poll never looks like a press. Returns nil unless its
    /// state topic was published, and so the accessory's JSON needs republishing; with `recordingJSON`
    /// false the caller records the value in the JSON (`recordJSON(of:)`, after the state messages left).
    @discardableResult
    func publishValue(
        _ address: CharacteristicAddress, _ value: CharacteristicValue?, source: ValueSource, recordingJSON: Bool = true
    ) -> PublishedValue? {
        // The entry is changed in place: a copy would copy its dictionaries on every value change.
        guard let value, let entry = published.index(forKey: address.accessory),
            let (state, madeStale) = published.values[entry].recordValue(iid: address.iid)
        else { return nil }
        if recordingJSON { published.values[entry].recordJSON(iid: address.iid) { value.jsonText } }
        let payload = value.mqttPayload
        if state.isStateless {
            if source == .event { outbox.send(state.topic, payload) }
            return nil
        }
        outbox.retain(state.topic, payload, qos: configuration.stateQoS)
        if state.isColourPart, let colour = index.hs(containing: address) {
            parts.following.hs.record(payload, at: address, of: colour)
        }
        return PublishedValue(madeJSONStale: madeStale, isAccessoryName: state.isAccessoryName)
    }

    /// Publishes the `hs` topics whose hue or saturation changed in this step.
    func publishHS() {
        for (colour, payload) in parts.following.hs.takeChanged() {
            retain(colour.stateTopic, payload, qos: configuration.stateQoS, for: colour.hue.accessory)
        }
    }

    /// Gives a new accessory its slug and topics and publishes its availability, values and JSON; values
    /// the store does not have yet are taken into the JSON from `scan`, the broker's retained state topics.
    func register(_ accessory: Accessory, reachable: Bool, filling scan: RetainedScan? = nil) {
        if published[accessory.id] != nil { _ = unregister(accessory.id, clear: false) }
        let layout = index.add(accessory)
        published[accessory.id] = PublishedAccessory(
            name: accessory.name, reachable: reachable, layout: layout, topics: topics)
        retain(topics.availability(layout.slug), reachable ? "online" : "offline", qos: .atLeastOnce, for: accessory.id)
        for service in accessory.services {
            for c in service.characteristics {
                publishValue(CharacteristicAddress(accessory: accessory.id, iid: c.iid), c.value, source: .sync)
            }
        }
        // Its values are all in: the hs topic goes with them, before the accessory JSON.
        publishHS()
        if let scan { fillJSON(of: accessory, from: scan) }
        publishAccessoryJSON(accessory.id)
        publishDiscovery(accessory, layout)
        logger.debug(
            "accessory \(accessory.name) is at \(topics.accessory(layout.slug))",
            ["accessory": accessory.id.description])
    }

    /// Forgets an accessory; with `clear`, every retained topic it ever had is cleared with an empty
    /// retained message: those published this run, and those of its layout that kept the last run's value
    /// (it was never read this run). Returns its slug.
    @discardableResult
    func unregister(_ id: AccessoryID, clear: Bool = true) -> String? {
        guard let entry = published.removeValue(forKey: id), let layout = index.remove(id) else { return nil }
        for colour in layout.hsTopics { parts.following.hs.forget(colour) }
        if clear {
            for topic in inClearingOrder(entry.topics.union(retainedTopics(of: layout))) { outbox.clear(topic) }
        }
        return layout.slug
    }

    /// `topics` in the order to clear them: Home Assistant's discovery configs first, then the rest, each
    /// sorted. An empty state payload that reaches an entity still configured fails its template (an
    /// error line in Home Assistant's log); one that comes after the entity is removed reaches nothing.
    func inClearingOrder(_ topics: some Sequence<String>) -> [String] {
        let prefix = configuration.homeAssistant.prefix + "/"
        var configs: [String] = []
        var rest: [String] = []
        for topic in topics {
            if topic.hasPrefix(prefix) { configs.append(topic) } else { rest.append(topic) }
        }
        return configs.sorted() + rest.sorted()
    }

    /// An accessory changed its services, characteristics or name: topics that no longer exist are
    /// cleared, new ones published; the slug stays.
    func update(old: Accessory, new: Accessory) {
        guard !isExcluded(new.id) else { return }
        guard let before = published[new.id] else {
            register(new, reachable: true)
            return
        }
        _ = unregister(new.id, clear: false)
        register(new, reachable: before.reachable)
        if var after = published[new.id], let layout = index.layouts[new.id] {
            // Only the state topics still published: one whose characteristic lost `pr` goes, as the retained
            // scan at start clears it (`retainedTopics(of:)`).
            let newStateTopics = Set(
                layout.characteristics.lazy.filter { $0.isReadable && !$0.isStateless }.map(\.stateTopic))
            for topic in inClearingOrder(before.topics) where !after.topics.contains(topic) {
                if newStateTopics.contains(topic) || topic == topics.availability(layout.slug)
                    || topic == topics.accessory(layout.slug)
                    || topic == layout.snapshotTopic
                {
                    after.topics.insert(topic)
                } else {
                    outbox.clear(topic)
                }
            }
            published[new.id] = after
        }
        if old.name != new.name {
            emit(.accessoryRenamed(id: new.id, slug: index.layouts[new.id]?.slug ?? "", from: old.name, to: new.name))
        }
    }
}
