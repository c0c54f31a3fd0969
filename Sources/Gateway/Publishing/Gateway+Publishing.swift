import HomeModel
import HomeStore
import JSON
import MQTT

/// The gateway's own topics (`<base>/<accessory>`, `bridge/accessories`, `bridge/info`, `bridge/event`,
/// the `hs` topics) and the end of every step: the outbox handed to the MQTT client.
extension Gateway {
    /// `<base>/<accessory>`: `{"<service>":{"<characteristic>":value,…},…}` with every readable value.
    func publishAccessoryJSON(_ id: AccessoryID) {
        guard let entry = published.index(forKey: id) else { return }
        publishAccessoryJSON(at: entry)
    }

    /// Publishes the accessory JSON of `id` unless it was published since its last change.
    func publishStaleAccessoryJSON(_ id: AccessoryID) {
        guard let entry = published.index(forKey: id), published.values[entry].jsonState().isStale else { return }
        publishAccessoryJSON(at: entry)
    }

    /// The entry is read and changed in place: a copy of it would copy its tables.
    private func publishAccessoryJSON(at entry: Dictionary<AccessoryID, PublishedAccessory>.Index) {
        let topic = published.values[entry].jsonState().topic
        outbox.retain(topic, payload: published.values[entry].renderJSON(), qos: configuration.stateQoS)
        published.values[entry].topics.insert(topic)
    }

    /// `bridge/accessories`: the list of every accessory with its topics and metadata.
    func publishAccessoryList() async {
        let accessories = await store.accessories()
        // Room for the whole document at once, so that it is not copied while it grows and keeps no slack:
        // the last one's size and a little, or about 250 bytes a characteristic the first time.
        let estimate =
            outbox.retained[topics.bridgeAccessories].map { $0.payload.count + $0.payload.count / 8 }
            ?? index.layouts.values.reduce(1024) { $0 + 250 * $1.byIID.count }
        let reasons = await store.offlineReasons()
        var writer = AccessoryDescription.ListWriter(reservingCapacity: estimate)
        for accessory in accessories {
            guard let layout = index.layouts[accessory.id], let entry = published[accessory.id] else { continue }
            writer.append(
                AccessoryDescription(
                    accessory: accessory, layout: layout, reachable: entry.reachable, topics: topics,
                    options: options(of: accessory.id), offlineReason: reasons[accessory.id]))
        }
        outbox.retain(topics.bridgeAccessories, payload: writer.finish(), qos: .atLeastOnce)
    }

    /// `bridge/info`: version, base topic, MQTT settings, the configuration without secrets, the
    /// configured homes with their rooms (`"homes":[{"name":"Home","rooms":["Kitchen"]}]`), and the options
    /// saved through `bridge/request/options` by accessory id (`"options":{"AA:…/2":{"name":"Desk"}}`).
    func bridgeInfoJSON(homes: [Home]) -> String {
        let homeList = homes.map { home -> JSONValue in
            ["name": .string(home.name), "rooms": .array(home.rooms.map { .string($0.name) })]
        }
        var mqtt = JSONObject()
        for (key, value) in configuration.mqttSummary.sorted(by: { $0.key < $1.key }) {
            mqtt.append(key, .string(value))
        }
        // The configuration's summary, written by `JSONValue.description` (hap2mqtt's `redactedSummary`).
        let config = configuration.configurationJSON.flatMap { try? JSONValue(parsing: Array($0.utf8)) }
        let info: JSONObject = [
            "version": .string(configuration.version), "base_topic": .string(topics.base), "mqtt": .object(mqtt),
            "homes": .array(homeList), "config": config ?? .object([:]),
            // Beside the YAML file's `homekit.accessories` in `config`: the options saved through the bridge API.
            "options": savedOptionsJSON,
            // The discovery format in use, and the migration under way (`DiscoveryMigration.record`).
            "homeassistant": discoveryInfo,
        ]
        return JSONValue.object(info).description
    }

    /// `bridge/event`, not retained.
    func emit(_ event: BridgeEvent) { outbox.send(topics.bridgeEvent, event.json) }

    /// Queues a retained message of an accessory, remembered with the accessory's topics so that it is
    /// cleared when the accessory goes.
    func retain(_ topic: String, _ text: String, qos: MQTTQoS, for accessory: AccessoryID) {
        retain(topic, payload: Array(text.utf8), qos: qos, for: accessory)
    }

    /// Queues a retained binary message of an accessory (a camera's JPEG), remembered as `retain` does.
    func retain(_ topic: String, payload: [UInt8], qos: MQTTQoS, for accessory: AccessoryID) {
        outbox.retain(topic, payload: payload, qos: qos)
        published[accessory]?.topics.insert(topic)
    }

    /// Sends everything queued, once the store is ready (nothing goes out before the first sync). New
    /// slugs are saved first, so that no topic reaches the broker under a slug the state directory does
    /// not hold: while they are written (off the store's executor, `saveSlugs()`), what is queued waits,
    /// and goes out once they are on disk.
    func flush() {
        guard isReady else { return }
        publishHS()
        guard !outbox.isEmpty else { return }
        guard !index.hasUnsavedSlugs, slugWrite == nil else {
            guard !isFlushAfterSlugs else { return }
            isFlushAfterSlugs = true
            Task {
                await self.saveSlugs()
                self.isFlushAfterSlugs = false
                self.flush()
            }
            return
        }
        do {
            try outbox.flush(to: mqtt)
        } catch {
            logPublishFailure(error)
        }
    }

    /// Writes the slugs given since the last save to the state directory on a thread of the global pool,
    /// not on the store's executor (the write ends with `fsync`, which a slow disk makes take long), after
    /// a write still under way; returns once they are on disk or the failure is logged.
    func saveSlugs() async {
        let previous = slugWrite
        guard let save = index.takeUnsavedSlugs() else {
            await previous?.value
            return
        }
        let write = Task.detached {
            await previous?.value
            save.write()
        }
        slugWrite = write
        await write.value
        if slugWrite == write { slugWrite = nil }
    }

    /// Gives accessory `id` the slug `newSlug` once the slug map that has it is written, on a thread of the
    /// global pool (the write ends with `fsync`, which must not hold the store's executor): a rename not on
    /// disk would be undone by the next start. Renames run one at a time, each after the slug writes
    /// before it; until the write is done nothing sees the new slug, so the accessory's topics stay where
    /// they are when it fails.
    /// - Throws: `GatewayError.invalidSlug` when `newSlug` cannot be used, `.slugMapNotSaved` when the
    ///   map cannot be written (nothing changed then).
    func renameSlug(_ id: AccessoryID, to newSlug: String) async throws(GatewayError) {
        while let earlier = renaming { await earlier.value }
        let (done, finished) = AsyncStream<Void>.makeStream()
        let mine = Task { for await _ in done {} }
        renaming = mine
        defer {
            finished.finish()
            if renaming == mine { renaming = nil }
        }
        guard let save = try index.mapRenaming(id, to: newSlug) else {
            try index.applyRename(id, to: newSlug)
            return
        }
        let previous = slugWrite
        let write = Task.detached { () -> GatewayError? in
            await previous?.value
            do throws(GatewayError) {
                try save.writeOrThrow()
                return nil
            } catch {
                return error
            }
        }
        let chained = Task { _ = await write.value }
        slugWrite = chained
        let failure = await write.value
        if slugWrite == chained { slugWrite = nil }
        if let failure { throw failure }
        try index.applyRename(id, to: newSlug)
    }

    /// A failed publish: while the broker is away only transient messages are lost (retained state goes
    /// out again after the reconnect), which is normal; a message the client refused is a fault worth a
    /// warning (the others of its batch went out).
    func logPublishFailure(_ error: MQTTError) {
        switch error {
        case .notConnected, .closed: logger.debug("publish failed, the broker connection is down: \(error)")
        default: logger.warning("a message was not published: \(error)")
        }
    }

    /// Flushes once the current job of the gateway's executor ends, unless a flush within it sent
    /// everything first: for messages whose companions this job adds later (a confirmed write's answer).
    func flushAfterThisJob() {
        guard !isFlushScheduled else { return }
        isFlushScheduled = true
        Task {
            self.isFlushScheduled = false
            self.flush()
        }
    }

    /// Sends messages built outside the outbox (a republish) in one call.
    func send(_ messages: [MQTTMessage]) {
        guard !messages.isEmpty else { return }
        do {
            try mqtt.publish(messages)
        } catch {
            logPublishFailure(error)
        }
    }
}
