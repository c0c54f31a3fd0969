import Foundation
import HomeModel
import JSON
import MQTT
import SystemSupport

/// Runs the steps of a discovery format migration (`DiscoveryMigration`): each step's messages go out in
/// order and the step is done when the broker acknowledged the last of them (QoS 1 messages of one
/// client reach it in order, and wait through a reconnect); the record in the state directory is written
/// before every step.
extension Gateway {
    /// After the home is published at start: the record's first write, or the migration that the
    /// record (an interrupted one) or a changed `homeassistant.discovery_format` starts.
    func startDiscoveryFormat() {
        let actions = parts.homeAssistant.migrationStart
        parts.homeAssistant.migrationStart = []
        if case .migrating(let from, let to, let step) = parts.homeAssistant.migration.state {
            logger.info(
                "migrating the Home Assistant discovery configs from \(from) to \(to), from the step \(step) on (Home Assistant's migration keeps every entity)"
            )
        } else if parts.homeAssistant.migration.asked == nil, parts.homeAssistant.migration.publishingFormat == .entity
        {
            logger.info(
                "Home Assistant discovery publishes one config per entity, as this installation did before; Home Assistant 2024.11 and later take one per device: set homeassistant.discovery_format: device, or send {\"format\":\"device\"} to \(topics.bridgeRequest(Self.migrateRequest)), to migrate"
            )
        }
        perform(actions)
    }

    /// The bridge request that migrates the discovery configs.
    static let migrateRequest = "homeassistant_migrate"

    /// `homeassistant_migrate`: `{"format":"device"|"entity"}` starts the migration to that format and
    /// answers at once with `{"from":…,"to":…}` (`bridge/info` shows its progress), or
    /// `{"format":…}` when the configs are in that format already.
    func migrateDiscovery(_ request: JSONObject) -> Result<JSONValue, GatewayError> {
        guard let name = request["format"]?.stringValue, let format = DiscoveryFormat(rawValue: name) else {
            return .failure(.invalidPayload(#"give the format: {"format":"device"} or {"format":"entity"}"#))
        }
        guard configuration.homeAssistant.discovery else {
            return .failure(
                .invalidPayload(
                    "Home Assistant discovery is off (homeassistant.discovery): there are no configs to migrate"))
        }
        let before = parts.homeAssistant.migration.state
        let actions: [DiscoveryMigration.Action]
        do throws(DiscoveryMigration.Refusal) {
            actions = try parts.homeAssistant.migration.request(format)
        } catch {
            return .failure(.invalidPayload(error.description))
        }
        guard case .settled(let from) = before, !actions.isEmpty else {
            return .success(.object(["format": .string(format.rawValue)]))
        }
        logger.info("migrating the Home Assistant discovery configs from \(from) to \(format), as requested")
        perform(actions)
        return .success(.object(["from": .string(from.rawValue), "to": .string(format.rawValue)]))
    }

    /// At a stop: lets the migration's action under way end (a record being written), for at most a few
    /// seconds, so that nothing is written after the gateway stopped; the steps after it wait for the next
    /// start, which the record names.
    func endDiscoveryMigrationStep() async {
        guard let task = parts.homeAssistant.migrationTask else { return }
        _ = await withDeadline(.seconds(3)) { await task.value }
    }

    /// Runs `actions` after the ones running now.
    func perform(_ actions: [DiscoveryMigration.Action]) {
        guard !actions.isEmpty else { return }
        let previous = parts.homeAssistant.migrationTask
        parts.homeAssistant.migrationTask = Task {
            await previous?.value
            await self.run(actions)
        }
    }

    private func run(_ actions: [DiscoveryMigration.Action]) async {
        var queue = actions[...]
        while let action = queue.popFirst(), !isStopped {
            switch action {
            case .save:
                await saveDiscoveryRecord()
            case .run(let step):
                guard configuration.homeAssistant.discovery else {
                    // Nothing is published with discovery off: the step waits for a start with it on.
                    return
                }
                guard await sendStep(step) else { return }
                queue = parts.homeAssistant.migration.stepDone()[...] + queue
                if case .settled(let format) = parts.homeAssistant.migration.state {
                    logger.info("the Home Assistant discovery configs are migrated: one per \(format) now")
                }
            }
        }
    }

    /// Writes the record off the store's executor (it ends with `fsync`), then shows it in `bridge/info`.
    private func saveDiscoveryRecord() async {
        if let directory = configuration.stateDirectory {
            let bytes = Data(parts.homeAssistant.migration.record.encoded(sortingKeys: true))
            let failure = await Task.detached { () -> StateDirectoryError? in
                do throws(StateDirectoryError) {
                    try directory.write(bytes, to: DiscoveryMigration.fileName)
                    return nil
                } catch {
                    return error
                }
            }.value
            if let failure {
                logger.warning(
                    "cannot record the Home Assistant discovery format (\(failure)); a restart may repeat a migration step"
                )
            }
        }
        await publishBridgeInfo()
    }

    /// Sends the messages of `step`, built from the home now, and waits for the broker's acknowledgement
    /// of the last. Returns false when the gateway stopped first.
    private func sendStep(_ step: DiscoveryMigration.Step) async -> Bool {
        var delay = Duration.milliseconds(500)
        while !isStopped {
            // No topic goes out under a slug the state directory does not hold.
            while index.hasUnsavedSlugs || slugWrite != nil { await saveSlugs() }
            await queue(step)
            let batch = outbox.take()
            guard let last = batch.last else { return true }
            do throws(MQTTError) {
                try mqtt.publish(Array(batch.dropLast()))
                try await mqtt.publishAndWait(last)
                return true
            } catch {
                logger.warning("the discovery migration's step \(step) did not reach the broker: \(error); retrying")
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(30))
            }
        }
        return false
    }

    /// Queues the messages of `step` in the outbox: for `announce`, `{"migrate_discovery":true}` on every
    /// config topic of the old format; for `clear`, an empty message on every topic of the old format;
    /// for `publish`, every config in the new one (the ordinary publishing, which follows the migration's
    /// format from this step on).
    private func queue(_ step: DiscoveryMigration.Step) async {
        guard case .migrating(let from, _, _) = parts.homeAssistant.migration.state else { return }
        var accessories: [(Accessory, AccessoryLayout)] = []
        for accessory in await store.accessories() {
            if let layout = index.layouts[accessory.id] { accessories.append((accessory, layout)) }
        }
        switch step {
        case .announce:
            let marker = JSONValue.object(["migrate_discovery": true]).description
            // Kept among the retained messages, so that a reconnect republishes the marker, not the config.
            outbox.retain(parts.homeAssistant.discovery.bridgeConfig(format: from).topic, marker, qos: .atLeastOnce)
            for (accessory, layout) in accessories {
                for config in parts.homeAssistant.discovery.plan(for: accessory, layout: layout, format: from).publish {
                    outbox.retainUnkept(config.topic, marker, qos: .atLeastOnce)
                }
            }
        case .clear:
            outbox.clear(parts.homeAssistant.discovery.bridgeConfig(format: from).topic)
            for (accessory, layout) in accessories {
                let plan = parts.homeAssistant.discovery.plan(for: accessory, layout: layout, format: from)
                for topic in plan.publish.map(\.topic) + plan.clear {
                    published[accessory.id]?.topics.remove(topic)
                    outbox.clear(topic)
                }
            }
        case .publish:
            publishBridgeDiscovery()
            for (accessory, layout) in accessories { publishDiscovery(accessory, layout) }
        }
    }

    /// Publishes `bridge/info` again when what it shows changed.
    private func publishBridgeInfo() async {
        let info = bridgeInfoJSON(homes: await store.homes)
        guard outbox.retained[topics.bridgeInfo]?.payload != Array(info.utf8) else { return }
        outbox.retain(topics.bridgeInfo, info, qos: .atLeastOnce)
        flush()
    }

    /// `bridge/info`'s `homeassistant` member: the discovery format, and the migration under way.
    var discoveryInfo: JSONValue { parts.homeAssistant.migration.record }
}
