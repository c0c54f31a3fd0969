import HomeModel
import HomeStore
import MQTT

extension Gateway {
    // MARK: Following the store

    /// Applies one batch of store changes; every message it causes goes out in one batch. What needs the
    /// store's accessories (a renamed accessory, the accessory list) follows in a task of its own.
    func apply(_ batch: [HomeChange]) {
        var changedJSON = Set<AccessoryID>()
        var renamed = Set<AccessoryID>()
        var listChanged = false
        for change in batch {
            switch change {
            case .valueChanged(let address, let value, let source):
                if let topic = publishValue(address, value, source: source) {
                    changedJSON.insert(address.accessory)
                    if topic.isAccessoryName { renamed.insert(address.accessory) }
                }
            case .accessoryAdded(let accessory):
                register(accessory, reachable: true)
                emit(.accessoryAdded(id: accessory.id, slug: published[accessory.id]?.layout.slug ?? "", name: accessory.name))
                listChanged = true
            case .accessoryRemoved(let accessory):
                if let slug = unregister(accessory.id) {
                    emit(.accessoryRemoved(id: accessory.id, slug: slug, name: accessory.name))
                }
                listChanged = true
            case .accessoryUpdated(let old, let new):
                update(old: old, new: new)
                changedJSON.insert(new.id)
                listChanged = true
            case .reachabilityChanged(let id, let reachable, let reason):
                guard var entry = published[id] else { continue }
                entry.reachable = reachable
                published[id] = entry
                publishRetained(topics.availability(entry.layout.slug), reachable ? "online" : "offline", qos: .atLeastOnce, for: id)
                emit(.availability(id: id, slug: entry.layout.slug, online: reachable, reason: reason))
                logger.info("accessory \(entry.name) is \(reachable ? "online" : "offline")\(reason.map { ": \($0)" } ?? "")", ["accessory": id.description])
                listChanged = true
            }
        }
        // The characteristic messages leave before the accessory JSON is rendered: a lone change reaches
        // its topic's subscribers sooner, and a burst costs one more hand-over to the MQTT client.
        flush()
        for id in changedJSON { publishAccessoryJSON(id) }
        flush()
        pendingRenames.formUnion(renamed)
        isListPending = isListPending || listChanged
        guard !pendingRenames.isEmpty || isListPending, !isFollowUpScheduled else { return }
        isFollowUpScheduled = true
        Task { [weak self] in await self?.followUp() }
    }

    /// Publishes what batches left for later: renamed accessories, then the accessory list.
    private func followUp() async {
        var listChanged = isListPending
        let renamed = pendingRenames
        pendingRenames = []
        isListPending = false
        isFollowUpScheduled = false
        guard !isStopped else { return }
        for id in renamed.sorted() {
            // The displayed name follows the Name characteristic unless the configuration names the accessory.
            guard let accessory = await store.accessory(id), let old = published[id]?.name, accessory.name != old else { continue }
            published[id]?.name = accessory.name
            emit(.accessoryRenamed(id: id, slug: published[id]?.layout.slug ?? "", from: old, to: accessory.name))
            // Home Assistant's device name follows (unless the user renamed the device there).
            if let layout = published[id]?.layout { publishDiscovery(accessory, layout) }
            listChanged = true
        }
        if listChanged {
            await publishAccessoryList()
        }
        flush()
    }

    /// Publishes a characteristic's value. The store delivers a value once, and only when it changed or
    /// was read on request, so every value that comes is published. Stateless characteristics (button
    /// presses) go out unretained and only for real events, so a reconnect or a poll never looks like a
    /// press. Returns the characteristic's topics when its state topic was published, and so the
    /// accessory's JSON needs republishing.
    @discardableResult
    func publishValue(_ address: CharacteristicAddress, _ value: CharacteristicValue?, source: ValueSource) -> CharacteristicTopic? {
        // The entry is changed in place: a copy would copy its dictionaries on every value change.
        guard let value, let index = published.index(forKey: address.accessory),
            let topic = published.values[index].layout.byIID[address.iid], topic.isReadable
        else { return nil }
        let payload = value.description
        if topic.isStateless {
            if source == .event { publishTransient(topic.stateTopic, payload) }
            return nil
        }
        published.values[index].topics.insert(topic.stateTopic)
        published.values[index].json.set(JSONFragment.value(value), iid: address.iid)
        publishRetained(topic.stateTopic, payload, qos: configuration.stateQoS)
        // Once per step, when both values are in: a batch that changes hue and saturation would otherwise
        // show a colour that never was (new hue, old saturation) before the right one.
        if let hs = hsByAddress[address] {
            published.values[index].colour[address.iid] = payload
            if !pendingHS.contains(where: { $0.stateTopic == hs.stateTopic }) { pendingHS.append(hs) }
        }
        return topic
    }

    /// The payload last published on a hue or saturation state topic.
    func lastPayload(_ address: CharacteristicAddress) -> String? { published[address.accessory]?.colour[address.iid] }

    /// Gives a new accessory its slug and topics and publishes its availability, values and JSON.
    func register(_ accessory: Accessory, reachable: Bool) {
        if published[accessory.id] != nil { _ = unregister(accessory.id, clear: false) }
        let slug = slugs.slug(for: accessory.id, name: accessory.name)
        let layout = AccessoryLayout(accessory: accessory, slug: slug, topics: topics)
        published[accessory.id] = Published(
            layout: layout, name: accessory.name, reachable: reachable, json: AccessoryJSON(layout: layout, topics: topics))
        for topic in layout.characteristics { addressByStateTopic[topic.stateTopic] = topic.address }
        for hs in layout.hsTopics {
            hsByStateTopic[hs.stateTopic] = hs
            hsByAddress[hs.hue] = hs
            hsByAddress[hs.saturation] = hs
        }
        publishRetained(topics.availability(slug), reachable ? "online" : "offline", qos: .atLeastOnce, for: accessory.id)
        for service in accessory.services {
            for c in service.characteristics {
                publishValue(CharacteristicAddress(accessory: accessory.id, iid: c.iid), c.value, source: .sync)
            }
        }
        // Its values are all in: the hs topic goes with them, before the accessory JSON.
        publishPendingHS()
        publishAccessoryJSON(accessory.id)
        publishDiscovery(accessory, layout)
        logger.debug("accessory \(accessory.name) is at \(topics.accessory(slug))", ["accessory": accessory.id.description])
    }

    /// Forgets an accessory; with `clear`, every retained topic it ever had is cleared with an empty
    /// retained message. Returns its slug.
    @discardableResult
    func unregister(_ id: AccessoryID, clear: Bool = true) -> String? {
        guard let entry = published.removeValue(forKey: id) else { return nil }
        for topic in entry.layout.characteristics { addressByStateTopic[topic.stateTopic] = nil }
        for hs in entry.layout.hsTopics {
            hsByStateTopic[hs.stateTopic] = nil
            hsByAddress[hs.hue] = nil
            hsByAddress[hs.saturation] = nil
        }
        if clear {
            for topic in entry.topics.sorted() { clearRetained(topic) }
        }
        return entry.layout.slug
    }

    /// An accessory changed its services, characteristics or name: topics that no longer exist are
    /// cleared, new ones published; the slug stays.
    func update(old: Accessory, new: Accessory) {
        guard let before = published[new.id] else {
            register(new, reachable: true)
            return
        }
        let oldTopics = before.topics
        _ = unregister(new.id, clear: false)
        register(new, reachable: before.reachable)
        if var after = published[new.id] {
            let newStateTopics = Set(after.layout.characteristics.map(\.stateTopic))
            for topic in oldTopics.sorted() where !after.topics.contains(topic) {
                if newStateTopics.contains(topic) || topic == topics.availability(after.layout.slug)
                    || topic == topics.accessory(after.layout.slug)
                {
                    after.topics.insert(topic)
                } else {
                    clearRetained(topic)
                }
            }
            published[new.id] = after
        }
        if old.name != new.name {
            emit(.accessoryRenamed(id: new.id, slug: before.layout.slug, from: old.name, to: new.name))
        }
    }

    /// `<base>/<accessory>`: `{"<service>":{"<characteristic>":value,…},…}` with every readable value.
    func publishAccessoryJSON(_ id: AccessoryID) {
        guard let entry = published[id] else { return }
        publishRetained(entry.json.topic, entry.json.render(), qos: configuration.stateQoS, for: id)
    }

    /// `bridge/accessories`: the list of every accessory with its topics and metadata.
    func publishAccessoryList() async {
        let accessories = await store.accessories()
        // Room for the whole document at once, so that it is not copied while it grows and keeps no slack:
        // the last one's size and a little, or about 250 bytes a characteristic the first time.
        let estimate = retained[topics.bridgeAccessories].map { $0.payload.count + $0.payload.count / 8 }
            ?? published.values.reduce(1024) { $0 + 250 * $1.layout.byIID.count }
        var writer = AccessoryDescription.ListWriter(reservingCapacity: estimate)
        for accessory in accessories {
            guard let entry = published[accessory.id] else { continue }
            writer.append(AccessoryDescription(accessory: accessory, layout: entry.layout, reachable: entry.reachable, topics: topics))
        }
        publishRetained(topics.bridgeAccessories, payload: writer.finish(), qos: .atLeastOnce)
    }

    /// `bridge/info`: version, base topic, MQTT settings, the configuration without secrets, and the
    /// configured homes with their rooms (`"homes":[{"name":"Home","rooms":["Kitchen"]}]`).
    func bridgeInfoJSON(homes: [Home]) -> String {
        let s = JSONFragment.string
        var fields = ["\"version\":\(s(configuration.version))"]
        let homeList = homes.map { home in
            "{\"name\":\(s(home.name)),\"rooms\":[\(home.rooms.map { s($0.name) }.joined(separator: ","))]}"
        }
        let mqtt = configuration.mqttSummary.sorted { $0.key < $1.key }.map { "\(s($0.key)):\(s($0.value))" }
        fields.append("\"base_topic\":\(s(topics.base))")
        fields.append("\"mqtt\":{\(mqtt.joined(separator: ","))}")
        fields.append("\"homes\":[\(homeList.joined(separator: ","))]")
        fields.append("\"config\":\(configuration.configurationJSON ?? "{}")")
        return "{" + fields.joined(separator: ",") + "}"
    }

    func emit(_ event: BridgeEvent) { publishTransient(topics.bridgeEvent, event.json) }

    // MARK: Sending

    /// Queues a retained message and remembers it for republishing after a reconnect.
    func publishRetained(_ topic: String, _ payload: String, qos: MQTTQoS, for accessory: AccessoryID? = nil) {
        publishRetained(topic, payload: Array(payload.utf8), qos: qos, for: accessory)
    }

    /// Queues a retained message whose payload is ready as bytes.
    func publishRetained(_ topic: String, payload: [UInt8], qos: MQTTQoS, for accessory: AccessoryID? = nil) {
        let message = MQTTMessage(topic: topic, payload: payload, qos: qos, retain: true)
        retained[topic] = RetainedPayload(payload: payload, qos: qos)
        if let accessory { published[accessory]?.topics.insert(topic) }
        outbox.append(message)
    }

    /// Queues an empty retained message, which deletes the retained message on the broker.
    func clearRetained(_ topic: String) {
        retained[topic] = nil
        outbox.append(MQTTMessage(topic: topic, payload: [], qos: .atLeastOnce, retain: true))
    }

    /// Queues a message that is not retained (events, results).
    func publishTransient(_ topic: String, _ payload: String, properties: MQTTProperties = .init()) {
        outbox.append(MQTTMessage(topic: topic, string: payload, qos: .atLeastOnce, retain: false, properties: properties))
    }

    /// Sends everything queued, once the store is ready (nothing goes out before the first sync).
    /// New slugs are saved first, so that no topic reaches the broker under a slug the state directory
    /// does not hold.
    func flush() {
        guard isReady else { return }
        publishPendingHS()
        guard !outbox.isEmpty else { return }
        slugs.saveIfChanged()
        // Not `removeAll(keepingCapacity:)`: with `messages` sharing the buffer, that allocates another
        // of the same size, and the first batch's (30,000 messages) would stay reserved for good.
        var messages: [MQTTMessage] = []
        swap(&messages, &outbox)
        send(messages)
    }

    /// Publishes the combined hue+saturation topics whose values changed in this step.
    func publishPendingHS() {
        for hs in pendingHS { publishHS(hs) }
        pendingHS = []
    }

    func send(_ messages: [MQTTMessage]) {
        guard !messages.isEmpty else { return }
        do {
            try mqtt.publish(messages)
        } catch {
            // Retained state is republished in full after the reconnect; only transient messages are lost.
            logger.debug("publish failed, the broker connection is down: \(error)")
        }
    }
}
