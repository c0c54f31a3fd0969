import HomeModel
import HomeStore
import MQTT
import SystemSupport

extension Gateway {
    /// Publishes the discovery configs of a newly registered accessory (retained, QoS 1, in the
    /// accessory's topic set so that removing or renaming it clears them) and clears, once per run, the
    /// configs that discovery being off or an exclusion takes away.
    ///
    /// The configs are not kept in the outbox's retained messages: they are built again from the store
    /// when they must be republished (`retainedInOrder()`), since they are the largest retained payloads
    /// (4 MB at 10,000 characteristics) and needed only after a reconnect or Home Assistant's birth message.
    func publishDiscovery(_ accessory: Accessory, _ layout: AccessoryLayout) {
        // While a migration announces and clears the old configs, nothing is published in either format:
        // its last step publishes every accessory as it is then. Discovery off clears both formats anyway.
        guard let format = clearingOrPublishingFormat else { return }
        var plan = parts.homeAssistant.discovery.plan(for: accessory, layout: layout, format: format)
        if !configuration.homeAssistant.discovery {
            // Discovery off removes what either format made.
            plan.clear += parts.homeAssistant.discovery.plan(for: accessory, layout: layout, format: format.other).clear
        }
        let current = published[accessory.id]?.topics ?? []
        for config in plan.publish {
            published[accessory.id]?.topics.insert(config.topic)
            outbox.retainUnkept(config.topic, config.text, qos: .atLeastOnce)
        }
        for topic in plan.clear
        where current.contains(topic) || !parts.homeAssistant.clearedDiscoveryTopics.contains(topic) {
            parts.homeAssistant.clearedDiscoveryTopics.insert(topic)
            published[accessory.id]?.topics.remove(topic)
            outbox.clear(topic)
        }
    }

    /// The gateway's own device (a connectivity sensor on `bridge/state`), which accessories point to.
    func publishBridgeDiscovery() {
        guard let format = clearingOrPublishingFormat else { return }
        let config = parts.homeAssistant.discovery.bridgeConfig(format: format)
        if configuration.homeAssistant.discovery {
            outbox.retain(config.topic, config.text, qos: .atLeastOnce)
        } else {
            outbox.clear(config.topic)
            outbox.clear(parts.homeAssistant.discovery.bridgeConfig(format: format.other).topic)
        }
    }

    /// The format configs are published in now, nil while a migration holds them back; with discovery off,
    /// where both formats are cleared, any.
    private var clearingOrPublishingFormat: DiscoveryFormat? {
        parts.homeAssistant.migration.publishingFormat ?? (configuration.homeAssistant.discovery ? nil : .device)
    }

    /// Home Assistant said `online` on its status topic (it started, or its MQTT integration reloaded):
    /// after a random delay in the configured range, every config and then every state is published
    /// again. Births during the delay are answered once.
    func handleHomeAssistantStatus(_ message: MQTTMessage) {
        guard configuration.homeAssistant.discovery, parts.homeAssistant.births.received(message.payloadString) else {
            return
        }
        let range = configuration.homeAssistant.birthDelay
        let seconds = Double.random(in: range.lowerBound.inSeconds...range.upperBound.inSeconds)
        logger.info(
            "Home Assistant is online; publishing discovery and state again in \(CharacteristicValue.format((seconds * 10).rounded() / 10)) s"
        )
        tasks.append(
            Task { [weak self] in
                try? await Task.sleep(for: .seconds(seconds))
                await self?.answerHomeAssistantBirth()
            })
    }

    private func answerHomeAssistantBirth() async {
        parts.homeAssistant.births.answering()
        guard isReady, !isStopped else { return }
        send(await retainedInOrder())
    }

    /// Every retained message the gateway holds: `bridge/state` first, then the discovery configs (built
    /// again from the store's accessories), then the rest, so that Home Assistant knows every entity
    /// before its state arrives.
    func retainedInOrder() async -> [MQTTMessage] {
        let accessories = await store.accessories()
        var configs: [MQTTMessage] = []
        if configuration.homeAssistant.discovery, let format = parts.homeAssistant.migration.publishingFormat {
            for accessory in accessories {
                guard let layout = index.layouts[accessory.id] else { continue }
                for config in parts.homeAssistant.discovery.plan(for: accessory, layout: layout, format: format).publish
                {
                    configs.append(
                        MQTTMessage(topic: config.topic, string: config.text, qos: .atLeastOnce, retain: true))
                }
            }
        }
        let prefix = configuration.homeAssistant.prefix + "/"
        var state: [MQTTMessage] = []
        var rest: [MQTTMessage] = []
        for message in outbox.retainedMessages() {
            let topic = message.topic
            if topic == topics.bridgeState {
                state.append(message)
            } else if topic.hasPrefix(prefix) {
                configs.insert(message, at: 0)  // the gateway's own device, before the accessories point to it
            } else {
                rest.append(message)
            }
        }
        return state + configs + rest
    }
}

extension String {
    var trimmingSpaces: Substring {
        let start = firstIndex { !$0.isWhitespace } ?? endIndex
        let end = lastIndex { !$0.isWhitespace }.map { index(after: $0) } ?? start
        return self[start..<end]
    }
}
