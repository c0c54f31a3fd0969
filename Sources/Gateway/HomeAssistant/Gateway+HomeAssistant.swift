import HomeModel
import HomeStore
import MQTT

extension Gateway {
    /// Publishes the discovery configs of a newly registered accessory (retained, QoS 1, in the
    /// accessory's topic set so that removing or renaming it clears them) and clears, once per run, the
    /// configs that discovery being off or an exclusion takes away.
    func publishDiscovery(_ accessory: Accessory, _ layout: AccessoryLayout) {
        let plan = discovery.plan(for: accessory, layout: layout)
        for config in plan.publish {
            publishRetained(config.topic, config.text, qos: .atLeastOnce, for: accessory.id)
        }
        for topic in plan.clear where retained[topic] != nil || !clearedDiscoveryTopics.contains(topic) {
            clearedDiscoveryTopics.insert(topic)
            clearRetained(topic)
        }
    }

    /// The gateway's own device (a connectivity sensor on `bridge/state`), which accessories point to.
    func publishBridgeDiscovery() {
        let config = discovery.bridgeConfig()
        if configuration.homeAssistant.discovery {
            publishRetained(config.topic, config.text, qos: .atLeastOnce)
        } else {
            clearRetained(config.topic)
        }
    }

    /// Home Assistant said `online` on its status topic (it started, or its MQTT integration reloaded):
    /// after a random delay in the configured range, every config and then every state is published
    /// again. Births during the delay are answered once.
    func handleHomeAssistantStatus(_ message: MQTTMessage) {
        guard configuration.homeAssistant.discovery, message.payloadString?.trimmingSpaces == "online", !isBirthPending
        else { return }
        isBirthPending = true
        let range = configuration.homeAssistant.birthDelay
        let seconds = Double.random(in: range.lowerBound.seconds...range.upperBound.seconds)
        logger.info("Home Assistant is online; publishing discovery and state again in \(CharacteristicValue.format((seconds * 10).rounded() / 10)) s")
        tasks.append(Task { [weak self] in
            try? await Task.sleep(for: .seconds(seconds))
            await self?.answerHomeAssistantBirth()
        })
    }

    private func answerHomeAssistantBirth() {
        isBirthPending = false
        guard isReady, !isStopped else { return }
        send(retainedInOrder())
    }

    /// Every retained message the gateway holds: `bridge/state` first, then the discovery configs, then
    /// the rest, so that Home Assistant knows every entity before its state arrives.
    func retainedInOrder() -> [MQTTMessage] {
        let prefix = configuration.homeAssistant.prefix + "/"
        let all = retained.sorted { $0.key < $1.key }.map { topic, entry in
            MQTTMessage(topic: topic, payload: entry.payload, qos: entry.qos, retain: true)
        }
        let state = all.filter { $0.topic == topics.bridgeState }
        let configs = all.filter { $0.topic.hasPrefix(prefix) }
        let rest = all.filter { $0.topic != topics.bridgeState && !$0.topic.hasPrefix(prefix) }
        return state + configs + rest
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}

extension String {
    var trimmingSpaces: Substring {
        let start = firstIndex { !$0.isWhitespace } ?? endIndex
        let end = lastIndex { !$0.isWhitespace }.map { index(after: $0) } ?? start
        return self[start..<end]
    }
}
