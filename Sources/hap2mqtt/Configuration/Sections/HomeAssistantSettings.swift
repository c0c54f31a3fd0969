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

    init() {}

    /// The birth delay as a range.
    var birthDelay: ClosedRange<Duration> { birthDelayMin...birthDelayMax }

    /// Reads the section.
    /// - Throws: `ConfigurationError` for a bad topic, a delay outside 0 to 3600 seconds or a minimum
    ///   above its maximum, or an empty exclusion.
    init(reading section: inout ConfigurationSection) throws(ConfigurationError) {
        if let value = section.value("discovery") { discovery = try value.bool() }
        if let value = section.value("prefix") { prefix = try value.topic(allowsSlashAtEnds: false) }
        if let value = section.value("status_topic") { statusTopic = try value.topic(allowsSlashAtEnds: true) }
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
    }
}
