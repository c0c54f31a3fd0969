public import HomeModel
import JSON

/// Device-based discovery (Home Assistant's "Device discovery payload", 2024.11 and later): the
/// per-entity configs of one device, assembled into one config on `<prefix>/device/<node_id>/config`.
///
/// The configs are those the mapping builds (`configs(for:layout:applyingExclusions:)`), so every entity
/// the mapping makes is a component here without a line of its own. Each keeps its `object_id` as its key
/// in `cmps` and its `unique_id`, and the device topic's id is the per-entity configs' `node_id`: Home
/// Assistant's discovery id of a component, `<node_id> <object_id>`, is then the same in both formats,
/// which is what its migration between them needs (its "Migration from single component to
/// device-based discovery").
extension HomeAssistantDiscovery {
    /// The topic of the device-based config of the device `node`.
    public func deviceTopic(node: String) -> String { "\(configuration.prefix)/device/\(node)/config" }

    /// The device-based config of `configs`, which share one `device` (the configs of one accessory, or
    /// the gateway's own): `dev`, `o` and the availability most of them share at the top, and each config
    /// in `cmps` under its `object_id`, with its platform as `p` and without what the top holds. Nil
    /// when `configs` is empty (a device without components is cleared, not published).
    public func deviceConfig(node: String, of configs: [DiscoveryConfig]) -> DiscoveryConfig? {
        guard let first = configs.first else { return nil }
        let shared = Self.sharedAvailability(of: configs)
        var components = JSONObject()
        for config in configs {
            guard var payload = config.payload.objectValue else { continue }
            var component = JSONObject()
            component.append("p", .string(config.component))
            payload["device"] = nil
            payload["origin"] = nil
            if let shared, payload["availability"] == shared.list, payload["availability_mode"] == shared.mode {
                payload["availability"] = nil
                payload["availability_mode"] = nil
            }
            for member in payload { component.append(member.key, member.value) }
            components.append(config.objectID, .object(component))
        }
        var top: JSONObject = ["dev": first.payload["device"] ?? .null, "o": origin, "cmps": .object(components)]
        if let shared {
            top["avty"] = shared.list
            if let mode = shared.mode { top["avty_mode"] = mode }
        }
        return DiscoveryConfig(
            component: "device", topic: deviceTopic(node: node), uniqueID: node, payload: .object(top))
    }

    /// The availability (list and mode) that most of the entities among `configs` have, which the
    /// device-based config gives once; nil when none has one (the gateway's own device).
    static func sharedAvailability(of configs: [DiscoveryConfig]) -> (list: JSONValue, mode: JSONValue?)? {
        var counts: [(list: JSONValue, mode: JSONValue?, count: Int)] = []
        for config in configs {
            guard let list = config.payload["availability"] else { continue }
            let mode = config.payload["availability_mode"]
            if let i = counts.firstIndex(where: { $0.list == list && $0.mode == mode }) {
                counts[i].count += 1
            } else {
                counts.append((list, mode, 1))
            }
        }
        // The first of the most common, so the choice does not depend on anything but the order of configs.
        guard let best = counts.max(by: { $0.count < $1.count }) else { return nil }
        return (best.list, best.mode)
    }

    /// What discovery publishes and clears for `accessory` in `format`: in `entity` as `plan(for:layout:)`;
    /// in `device` one config with the entities left after the exclusions (an excluded characteristic's
    /// entity leaves `cmps`, and Home Assistant removes it), and its topic cleared when there are none
    /// or discovery is off.
    public func plan(for accessory: Accessory, layout: AccessoryLayout, format: DiscoveryFormat) -> Plan {
        let entityPlan = plan(for: accessory, layout: layout)
        guard format == .device else { return entityPlan }
        let node = Self.nodeID(of: accessory.id, base: topics.base)
        guard let config = deviceConfig(node: node, of: entityPlan.publish) else {
            return Plan(publish: [], clear: [deviceTopic(node: node)])
        }
        return Plan(publish: [config], clear: [])
    }

    /// The gateway's own device in `format`.
    public func bridgeConfig(format: DiscoveryFormat) -> DiscoveryConfig {
        let config = bridgeConfig()
        guard format == .device else { return config }
        return deviceConfig(node: bridgeIdentifier, of: [config]) ?? config
    }
}

extension DiscoveryConfig {
    /// The config's `object_id`, the level before `config` in its topic: the key of its component in a
    /// device-based config (`s9_c12`); for a device-based config, its `node_id`.
    public var objectID: String { level(fromEnd: 2) }

    /// The config's `node_id`, the level before the `object_id` (`hap2mqtt_aa_bb_cc_dd_ee_ff_2`); for a
    /// device-based config, `device`.
    public var nodeID: String { level(fromEnd: 3) }

    private func level(fromEnd n: Int) -> String {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        return levels.count >= n ? String(levels[levels.count - n]) : ""
    }
}
