import HomeModel
import JSON

/// The scenes' and groups' Home Assistant entities (`SceneDiscovery`), published with the lists and
/// cleared with what they show.
extension Gateway {
    private var sceneDiscovery: SceneDiscovery {
        SceneDiscovery(
            prefix: configuration.homeAssistant.prefix, topics: topics, bridgeIdentifier: bridgeDiscoveryIdentifier,
            version: configuration.version)
    }

    /// Publishes every scene's entity and clears those of `removed` scenes' slugs.
    func publishSceneDiscovery(removed: Set<String>) {
        guard configuration.homeAssistant.discovery else { return }
        let discovery = sceneDiscovery
        for slug in removed.sorted() { outbox.clear(discovery.sceneTopic(slug)) }
        for scene in parts.scenes.scenes {
            outbox.retain(
                discovery.sceneTopic(scene.slug),
                String(decoding: discovery.config(scene).encoded(sortingKeys: true), as: UTF8.self), qos: .atLeastOnce)
        }
    }

    /// Publishes a group's entity.
    func publishGroupDiscovery(_ group: DeviceGroup) {
        guard configuration.homeAssistant.discovery else { return }
        let discovery = sceneDiscovery
        let hasBrightness = group.members.contains { member in
            index.layouts[member.accessory]?.services.first { $0.iid == member.service }?.characteristics.contains {
                $0.type == GroupCharacteristic.brightness
            } ?? false
        }
        for topic in discovery.groupTopics(group.slug) where topic != discovery.groupTopic(group) {
            if outbox.retained[topic] != nil { outbox.clear(topic) }
        }
        outbox.retain(
            discovery.groupTopic(group),
            String(
                decoding: discovery.config(group, hasBrightness: hasBrightness).encoded(sortingKeys: true),
                as: UTF8.self),
            qos: .atLeastOnce)
    }

    /// Clears a group's entity.
    func clearGroupDiscovery(_ group: DeviceGroup) {
        guard configuration.homeAssistant.discovery else { return }
        outbox.clear(sceneDiscovery.groupTopic(group))
    }
}
