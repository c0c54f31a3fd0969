import Gateway
import SystemSupport

/// The `homeassistant` section: MQTT discovery for Home Assistant (its "MQTT Discovery" and birth
/// message conventions).
struct HomeAssistantSettings: Sendable, Hashable {
    /// `homeassistant.discovery`: publish discovery messages.
    var discovery = true
    /// `homeassistant.prefix`: the discovery prefix Home Assistant listens on.
    var prefix = "homeassistant"
    /// `homeassistant.status_topic`: where Home Assistant publishes `online` when it (re)starts.
    var statusTopic = "homeassistant/status"
    /// `homeassistant.birth_delay_min`: the shortest random delay before discovery is republished
    /// after Home Assistant's birth message (random, so that many gateways do not answer at once).
    var birthDelayMin = Duration.seconds(1)
    /// `homeassistant.birth_delay_max`: the longest such delay.
    var birthDelayMax = Duration.seconds(5)
    /// `homeassistant.exclude_accessories`: accessory slugs or ids left out of discovery.
    var excludeAccessories: [String] = []
    /// `homeassistant.exclude_characteristics`: `<accessory>/<service>/<characteristic>` topic paths,
    /// or characteristic slugs, left out of discovery.
    var excludeCharacteristics: [String] = []
    /// `homeassistant.discovery_format`: `device` (one config per accessory, Home Assistant 2024.11 and
    /// later) or `entity` (one per entity, every release); unset keeps the format the state directory
    /// records, `device` for a new installation. A change migrates by Home Assistant's protocol.
    var discoveryFormat: DiscoveryFormat?

    init() {}

    /// The birth delay as a range.
    var birthDelay: ClosedRange<Duration> { birthDelayMin...birthDelayMax }

    /// Reads the section; `baseTopic` is `mqtt.base_topic`, which the topics here must stay out of.
    /// - Throws: `ConfigurationError` for a bad topic, a prefix or status topic that overlaps
    ///   `mqtt.base_topic` (the gateway's own topics), a delay outside 0 to 3600 seconds or a minimum
    ///   above its maximum, or an empty exclusion.
    init(reading section: inout ConfigurationSection, baseTopic: String) throws(ConfigurationError) {
        if let value = section.value("discovery") { discovery = try value.bool() }
        let prefixValue = section.value("prefix")
        let statusValue = section.value("status_topic")
        if let prefixValue {
            prefix = try prefixValue.topic(allowsSlashAtEnds: false)
            try Self.checkHomeAssistantAccepts(prefix, prefixValue)
        }
        if let statusValue {
            statusTopic = try statusValue.topic(allowsSlashAtEnds: true)
            try Self.checkHomeAssistantAccepts(statusTopic, statusValue)
        }
        // Discovery configs under the base topic, or the base topic under the prefix, would mix the two
        // trees: a config and a characteristic could share a topic, and commands reach the wrong reader.
        let base = "mqtt.base_topic (\(baseTopic.jsonQuoted))"
        if Self.overlaps(prefix, baseTopic) {
            try Self.conflict(
                prefixValue, section.keyPath("prefix"), prefix, section: section,
                "conflicts with \(base): neither may be the other or lie under it; change one of them")
        }
        if statusTopic == baseTopic || statusTopic.hasPrefix(baseTopic + "/") {
            try Self.conflict(
                statusValue, section.keyPath("status_topic"), statusTopic, section: section,
                "conflicts with \(base): it must not lie under the gateway's own topics; change one of them")
        }
        let hour = 0.0...3600
        let minValue = section.value("birth_delay_min")
        let maxValue = section.value("birth_delay_max")
        if let minValue { birthDelayMin = try minValue.seconds(in: hour) }
        if let maxValue { birthDelayMax = try maxValue.seconds(in: hour) }
        if birthDelayMin > birthDelayMax, let blamed = maxValue ?? minValue {
            throw blamed.invalid(
                "\(section.keyPath("birth_delay_min")) (\(Duration.describe(birthDelayMin.inSeconds))) is more than "
                    + "\(section.keyPath("birth_delay_max")) (\(Duration.describe(birthDelayMax.inSeconds)))")
        }
        excludeAccessories = try section.value("exclude_accessories")?.texts() ?? []
        excludeCharacteristics = try section.value("exclude_characteristics")?.texts() ?? []
        if let value = section.value("discovery_format") {
            let text = try value.nonEmptyText()
            guard let format = DiscoveryFormat(rawValue: text) else {
                throw value.invalid(
                    "must be device (one config per accessory, Home Assistant 2024.11 and later) or entity (one per entity, every release), got \(text.jsonQuoted)"
                )
            }
            discoveryFormat = format
        }
    }

    /// Throws when Home Assistant would refuse `topic` as its discovery prefix or birth topic, as its MQTT
    /// integration checks a topic: no control characters (U+0000 to U+001F, U+007F to U+009F) and no Unicode
    /// noncharacters (U+FDD0 to U+FDEF, U+xFFFE, U+xFFFF).
    private static func checkHomeAssistantAccepts(_ topic: String, _ value: ConfigurationValue)
        throws(ConfigurationError)
    {
        for scalar in topic.unicodeScalars {
            let v = scalar.value
            if v <= 0x1F || (0x7F...0x9F).contains(v) {
                throw value.invalid(
                    "must not contain control characters (U+\(String(v, radix: 16, uppercase: true))), which Home Assistant refuses in a topic"
                )
            }
            if (0xFDD0...0xFDEF).contains(v) || v & 0xFFFE == 0xFFFE {
                throw value.invalid(
                    "must not contain the Unicode noncharacter U+\(String(v, radix: 16, uppercase: true)), which Home Assistant refuses in a topic"
                )
            }
        }
    }

    /// Throws `problem` at `value` when the file or environment set it, else (a default conflicts with
    /// another key) at the section, naming the key and its default.
    private static func conflict(
        _ value: ConfigurationValue?, _ key: String, _ topic: String, section: ConfigurationSection, _ problem: String
    ) throws(ConfigurationError) {
        throw value?.invalid(problem) ?? section.invalid("\(key) (default \(topic.jsonQuoted)) \(problem)")
    }

    /// Whether topic `a` and topic `b` are equal or one lies under the other (`hap2mqtt` and
    /// `hap2mqtt/ha`).
    private static func overlaps(_ a: String, _ b: String) -> Bool {
        a == b || a.hasPrefix(b + "/") || b.hasPrefix(a + "/")
    }
}
