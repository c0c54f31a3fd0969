public import HomeModel
import JSON

/// Builds Home Assistant's MQTT discovery configs (per-component form,
/// `<prefix>/<component>/<node_id>/<object_id>/config`) for accessories as the gateway lays them out.
///
/// Every config carries the accessory's `device` block (via the gateway's own device), an `origin` block,
/// and `availability` on both `bridge/state` and the accessory's availability topic with
/// `availability_mode: all`. `node_id` is `hap2mqtt_<accessory id>` and `object_id` is built from HAP
/// instance ids, so that neither a rename nor a new address moves a config or changes a `unique_id`.
public struct HomeAssistantDiscovery: Sendable {
    /// What discovery publishes and what it clears for one accessory.
    public struct Plan: Sendable, Hashable {
        /// The configs to publish (retained, QoS 1).
        public var publish: [DiscoveryConfig]
        /// Config topics the accessory would have without exclusions (or with discovery on): cleared.
        public var clear: [String]
    }

    /// What to publish and where.
    public let configuration: HomeAssistantConfiguration
    /// The gateway's topics, which the configs point at.
    public let topics: TopicScheme
    /// The gateway's version, for the `origin` and the gateway's device.
    public let version: String

    /// A builder for the gateway with these topics and version.
    public init(configuration: HomeAssistantConfiguration, topics: TopicScheme, version: String) {
        self.configuration = configuration
        self.topics = topics
        self.version = version
    }

    /// The gateway device's identifier, which every accessory names as its `via_device`.
    public var bridgeIdentifier: String { "hap2mqtt_bridge_" + HomeAssistantDiscovery.safe(topics.base) }

    /// The gateway's own device: a connectivity binary sensor on `bridge/state`.
    public func bridgeConfig() -> DiscoveryConfig {
        let name = topics.base == "hap2mqtt" ? "hap2mqtt" : "hap2mqtt (\(topics.base))"
        let payload: JSONObject = [
            "name": "Connection state", "device_class": "connectivity", "entity_category": "diagnostic",
            "state_topic": .string(topics.bridgeState), "value_template": "{{ value_json.state }}",
            "payload_on": "online", "payload_off": "offline",
            "unique_id": .string(bridgeIdentifier + "_connection_state"),
            "device": [
                "identifiers": [.string(bridgeIdentifier)], "name": .string(name), "manufacturer": "hap2mqtt",
                "model": "HomeKit to MQTT gateway", "sw_version": .string(version),
            ],
            "origin": origin,
        ]
        return DiscoveryConfig(
            component: "binary_sensor",
            topic: "\(configuration.prefix)/binary_sensor/\(bridgeIdentifier)/connection_state/config",
            uniqueID: bridgeIdentifier + "_connection_state", payload: .object(payload))
    }

    /// The configs to publish for `accessory` and the config topics to clear: everything is cleared when
    /// discovery is off or the accessory is excluded, and the entities of excluded characteristics are.
    public func plan(for accessory: Accessory, layout: AccessoryLayout) -> Plan {
        let everything = configs(for: accessory, layout: layout, applyingExclusions: false)
        let kept =
            configuration.discovery && !configuration.excludes(accessory.id, slug: layout.slug)
            ? configs(for: accessory, layout: layout, applyingExclusions: true) : []
        let keptTopics = Set(kept.map(\.topic))
        return Plan(publish: kept, clear: everything.map(\.topic).filter { !keptTopics.contains($0) })
    }

    /// Every config of an accessory, with or without the configured characteristic exclusions.
    public func configs(for accessory: Accessory, layout: AccessoryLayout, applyingExclusions: Bool)
        -> [DiscoveryConfig]
    {
        let node = HomeAssistantDiscovery.nodeID(of: accessory.id, base: topics.base)
        let labels = Self.labels(of: accessory)
        // The primary service, else the first with a mapping of its own (a camera's stream, not its
        // microphone), else the first that gets entities.
        let mainIID =
            (accessory.services.first { $0.isPrimary && ServiceMappings.isMappable($0) }
            ?? accessory.services.first { ServiceMappings.isMappable($0) && ServiceMappings.byType[$0.type] != nil }
            ?? accessory.services.first(where: ServiceMappings.isMappable))?.iid
        var entities: [DiscoveryEntity] = []
        var slotsByService: [Int: [HAPType: ServiceContext.Slot]] = [:]
        for (service, laid) in zip(accessory.services, layout.services) {
            var slots: [HAPType: ServiceContext.Slot] = [:]
            for (c, topic) in zip(service.characteristics, laid.characteristics) where slots[c.type] == nil {
                if applyingExclusions,
                    configuration.excludes(accessory: layout.slug, service: laid.slug, characteristic: topic.slug)
                {
                    continue
                }
                slots[c.type] = ServiceContext.Slot(topic: topic, characteristic: c)
            }
            slotsByService[service.iid] = slots
        }
        for (service, laid) in zip(accessory.services, layout.services) {
            let slots = slotsByService[service.iid] ?? [:]
            if service.type == .Service.accessoryInformation {
                if let identify = ServiceMappings.identifyButton(
                    slots[.Characteristic.identify], serviceIID: service.iid)
                {
                    entities.append(identify)
                }
                continue
            }
            guard ServiceMappings.isMappable(service), let label = labels[service.iid] else {
                // A hidden service (Koogeek's power meter) still shows the vendor characteristics it holds.
                if service.isHidden, !DiscoveryTypes.Service.skipped.contains(service.type) {
                    var context = ServiceContext(
                        service: service, accessory: accessory, serviceSlug: laid.slug, accessorySlug: layout.slug,
                        topics: topics, isMain: false, label: "",
                        slots: slots.filter { VendorCharacteristics.entry($0.key) != nil })
                    CharacteristicEntities.vendorPairs(&context)
                    for slot in context.untaken {
                        context.entities += CharacteristicEntities.entities(slot, in: context, isMain: false)
                    }
                    entities += context.entities
                }
                continue
            }
            // A service whose type repeats is numbered like its siblings, so none takes the device name.
            var context = ServiceContext(
                service: service, accessory: accessory, serviceSlug: laid.slug, accessorySlug: layout.slug,
                topics: topics,
                isMain: service.iid == mainIID && !label.isNumbered, label: label.text, slots: slots)
            context.linkedSlots = service.linked.compactMap { iid in
                zip(accessory.services, layout.services).first { $0.0.iid == iid }.map {
                    (slug: $0.1.slug, slots: slotsByService[iid] ?? [:])
                }
            }
            ServiceMappings.byType[service.type]?(&context)
            let hasMain = !context.entities.isEmpty
            let mainType = HAPCatalog.service(service.type)?.required.first
            CharacteristicEntities.vendorPairs(&context)
            context.entities += CharacteristicEntities.measurementSensors(context)
            for slot in context.untaken {
                let isMain = !hasMain && slot.characteristic.type == mainType
                context.entities += CharacteristicEntities.entities(slot, in: context, isMain: isMain)
            }
            entities += context.entities
            entities += ServiceMappings.deviceTriggers(context, number: label.number)
        }
        let device = deviceBlock(accessory, node: node)
        let availability: JSONValue = [
            ["topic": .string(topics.bridgeState), "value_template": "{{ value_json.state }}"],
            ["topic": .string(topics.availability(layout.slug))],
        ]
        return entities.map { entity in
            var payload = entity.options
            payload["device"] = device
            payload["origin"] = origin
            // A device trigger is no entity: it has no name, unique_id or availability (its schema drops them).
            if entity.component != ServiceMappings.deviceAutomation {
                payload["name"] = entity.name
                payload["unique_id"] = .string("\(node)_\(entity.objectID)")
                // A mapping's own entries (a lock in an unknown state) come after the two every entity has.
                if case .array(let own) = entity.options["availability"], case .array(let shared) = availability {
                    payload["availability"] = .array(shared + own)
                } else {
                    payload["availability"] = availability
                }
                payload["availability_mode"] = "all"
            }
            return DiscoveryConfig(
                component: entity.component,
                topic: "\(configuration.prefix)/\(entity.component)/\(node)/\(entity.objectID)/config",
                uniqueID: "\(node)_\(entity.objectID)", payload: .object(payload))
        }
    }

    /// `origin`: who published the config.
    var origin: JSONValue {
        var o: JSONObject = ["name": "hap2mqtt", "sw_version": .string(version)]
        if let url = configuration.supportURL { o["support_url"] = .string(url) }
        return .object(o)
    }

    /// `device`: the accessory as Home Assistant's device registry shows it; the room is the suggested area.
    private func deviceBlock(_ accessory: Accessory, node: String) -> JSONValue {
        var d: JSONObject = [
            "identifiers": [.string(node)], "name": .string(Self.displayName(accessory.name)),
            "via_device": .string(bridgeIdentifier),
        ]
        let fields: [(String, String?)] = [
            ("manufacturer", accessory.manufacturer), ("model", accessory.model),
            ("serial_number", accessory.serialNumber),
            ("sw_version", accessory.firmwareRevision), ("hw_version", accessory.hardwareRevision),
            ("suggested_area", accessory.room),
        ]
        for (key, value) in fields { if let value, !value.isEmpty { d[key] = .string(value) } }
        return .object(d)
    }

    /// The `node_id` of an accessory's configs under base topic `base`, which is also its device's
    /// identifier and the start of its entities' unique ids: `hap2mqtt_` + its id made safe
    /// (`hap2mqtt_aa_bb_cc_dd_ee_ff_2`) under the default base topic `hap2mqtt`, as it always was, and
    /// `hap2mqtt_<base made safe>_<id made safe>` under any other, so that gateways with distinct base
    /// topics that pair the same accessory never share a unique id, a device or a config topic. By it the
    /// gateway knows its own configs on the broker.
    public static func nodeID(of id: AccessoryID, base: String) -> String {
        base == defaultBase ? legacyNodeID(of: id) : "hap2mqtt_" + safe(base) + "_" + safe(id.description)
    }

    /// The `node_id` an accessory had under every base topic before base topics were told apart:
    /// `hap2mqtt_` + its id made safe. A gateway with another base topic clears the configs it published
    /// under it (`Gateway+Convergence.swift`).
    public static func legacyNodeID(of id: AccessoryID) -> String { "hap2mqtt_" + safe(id.description) }

    /// The default base topic, whose node ids are the legacy ones.
    public static let defaultBase = "hap2mqtt"

    /// `text` with every run of characters other than `[a-z0-9]` turned into one `_`, lower-cased: what
    /// Home Assistant accepts in a `node_id` (`AA:BB:CC:DD:EE:FF/2` → `aa_bb_cc_dd_ee_ff_2`).
    public static func safe(_ text: String) -> String {
        var out = ""
        for scalar in text.lowercased().unicodeScalars {
            if (scalar >= "a" && scalar <= "z") || (scalar >= "0" && scalar <= "9") {
                out.unicodeScalars.append(scalar)
            } else if !out.hasSuffix("_") {
                out.append("_")
            }
        }
        while out.hasSuffix("_") { out.removeLast() }
        return out.isEmpty ? "_" : out
    }
}
