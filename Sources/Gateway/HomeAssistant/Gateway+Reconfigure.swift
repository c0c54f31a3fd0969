import HomeModel
import MQTT

extension Gateway {
    /// Takes Home Assistant options changed while running (`hap2mqtt run` on SIGHUP): discovery on or
    /// off, the birth delay, and the exclusions; the bridge's and every accessory's discovery configs are
    /// published or cleared to match at once, and `bridge/info` shows `configurationJSON`, the configuration
    /// now in use. The prefix and the status topic stay as they are: moving them would leave configs
    /// behind under the old prefix, so the caller reports that they need a restart.
    public func reconfigure(homeAssistant new: HomeAssistantConfiguration, configurationJSON: String?) async {
        var options = new
        options.prefix = configuration.homeAssistant.prefix
        options.statusTopic = configuration.homeAssistant.statusTopic
        let wasOn = configuration.homeAssistant.discovery
        let formatChanged = options.format != configuration.homeAssistant.format
        configuration.homeAssistant = options
        configuration.configurationJSON = configurationJSON
        parts.homeAssistant.discovery = HomeAssistantDiscovery(
            configuration: options, topics: topics, version: configuration.version)
        guard isReady, !isStopped else { return }
        if options.discovery, !wasOn {
            do throws(MQTTError) {
                try await mqtt.subscribe([options.statusTopic], qos: .atLeastOnce, retainAsPublished: true)
            } catch {
                logger.warning("cannot subscribe to Home Assistant's status topic \(options.statusTopic): \(error)")
            }
        }
        publishBridgeDiscovery()
        for accessory in await store.accessories() {
            guard let layout = index.layouts[accessory.id] else { continue }
            publishDiscovery(accessory, layout)
        }
        outbox.retain(topics.bridgeInfo, bridgeInfoJSON(homes: await store.homes), qos: .atLeastOnce)
        flush()
        // A changed format migrates; discovery turned on goes on with a migration the record holds.
        if formatChanged { perform(parts.homeAssistant.migration.configure(options.format)) }
        if options.discovery, !wasOn, case .migrating(_, _, let step) = parts.homeAssistant.migration.state {
            perform([.run(step)])
        }
    }
}
