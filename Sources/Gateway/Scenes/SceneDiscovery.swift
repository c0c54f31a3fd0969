import JSON

/// Home Assistant's MQTT discovery configs of the scenes and groups (docs/home-assistant.md "Scenes and
/// groups"): a scene becomes a `scene` entity whose activation publishes `scene_recall`; a group becomes
/// one `light` (brightness in percent), `switch` or `cover` on the group's topics. All belong
/// to the gateway's own device, so their node is the gateway's identifier and the start-up convergence
/// clears those of scenes and groups gone while the gateway was not running.
struct SceneDiscovery: Sendable {
    let prefix: String
    let topics: TopicScheme
    /// The gateway's device identifier (`HomeAssistantDiscovery.bridgeIdentifier`).
    let bridgeIdentifier: String
    let version: String

    /// The config topic of a scene's entity.
    func sceneTopic(_ slug: String) -> String { "\(prefix)/scene/\(bridgeIdentifier)/scene_\(slug)/config" }

    /// The config topic of a group's entity.
    func groupTopic(_ group: DeviceGroup) -> String {
        "\(prefix)/\(component(group.kind))/\(bridgeIdentifier)/group_\(group.slug)/config"
    }

    /// The config topics a group of any kind could have had.
    func groupTopics(_ slug: String) -> [String] {
        ["light", "switch", "cover"].map { "\(prefix)/\($0)/\(bridgeIdentifier)/group_\(slug)/config" }
    }

    /// A scene's config: pressing it publishes `{"scene":"<slug>"}` on `bridge/request/scene_recall`.
    func config(_ scene: Scene) -> JSONValue {
        var payload = common(name: scene.name, object: "scene_\(scene.slug)")
        payload.append("command_topic", .string(topics.bridgeRequest("scene_recall")))
        payload.append("payload_on", .string(JSONValue.object(["scene": .string(scene.slug)]).description))
        return .object(payload)
    }

    /// A group's config, on `<base>/groups/<group>` and its `/set`.
    func config(_ group: DeviceGroup, hasBrightness: Bool) -> JSONValue {
        let state = topics.group(group.slug)
        var payload = common(name: group.name, object: "group_\(group.slug)")
        payload.append("command_topic", .string(state + "/set"))
        payload.append("state_topic", .string(state))
        switch group.kind {
        case .light:
            // The default schema, as the accessories' lights have it: its colour modes follow from the
            // topics given, in every Home Assistant version tested (the JSON schema's options changed).
            payload.append("state_value_template", "{{ value_json.state }}")
            payload.append("payload_on", "ON")
            payload.append("payload_off", "OFF")
            if hasBrightness {
                payload.append("brightness_command_topic", .string(state + "/set"))
                payload.append("brightness_command_template", #"{"brightness": {{ value }}}"#)
                payload.append("brightness_state_topic", .string(state))
                payload.append("brightness_value_template", "{{ value_json.brightness }}")
                payload.append("brightness_scale", 100)
            }
        case .switch, .outlet:
            payload.append("value_template", "{{ value_json.state }}")
            payload.append("payload_on", "ON")
            payload.append("payload_off", "OFF")
            payload.append("state_on", "ON")
            payload.append("state_off", "OFF")
            if group.kind == .outlet { payload.append("device_class", "outlet") }
        case .cover:
            payload.append("value_template", "{{ value_json.state }}")
            payload.append("state_open", "OPEN")
            payload.append("state_closed", "CLOSED")
            payload.append("payload_open", "OPEN")
            payload.append("payload_close", "CLOSE")
            payload.append("payload_stop", .null)
            payload.append("position_topic", .string(state))
            payload.append("position_template", "{{ value_json.position }}")
            payload.append("set_position_topic", .string(state + "/set"))
            payload.append("set_position_template", #"{"position": {{ position }}}"#)
        }
        return .object(payload)
    }

    /// The platform of a group's entity.
    func component(_ kind: GroupKind) -> String {
        switch kind {
        case .light: return "light"
        case .switch, .outlet: return "switch"
        case .cover: return "cover"
        }
    }

    /// Name, ids, the gateway's device, availability from `bridge/state`, origin.
    private func common(name: String, object: String) -> JSONObject {
        [
            "name": .string(name), "unique_id": .string("\(bridgeIdentifier)_\(object)"),
            "device": ["identifiers": [.string(bridgeIdentifier)]],
            "availability_topic": .string(topics.bridgeState),
            "availability_template": "{{ value_json.state }}",
            "origin": ["name": "hap2mqtt", "sw_version": .string(version)],
        ]
    }
}
