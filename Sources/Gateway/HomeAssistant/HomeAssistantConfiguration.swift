public import HomeModel

/// What the gateway does for Home Assistant: MQTT discovery under a prefix, and the answer to Home
/// Assistant's birth message (Home Assistant's "MQTT Discovery" conventions).
public struct HomeAssistantConfiguration: Sendable, Hashable {
    /// Publish discovery configs. When false, configs the gateway would publish are cleared instead, so
    /// turning discovery off removes the entities it made.
    public var discovery: Bool
    /// The discovery prefix Home Assistant listens on (default `homeassistant`), without a trailing `/`.
    public var prefix: String
    /// Where Home Assistant publishes `online` when it (re)starts (default `homeassistant/status`).
    public var statusTopic: String
    /// The random delay after Home Assistant's `online` before every config and then every state is
    /// published again, so that many gateways do not answer at the same instant.
    public var birthDelay: ClosedRange<Duration>
    /// Accessories left out of discovery, by slug (`kitchen_lamp`) or id (`AA:BB:CC:DD:EE:FF/2`).
    public var excludedAccessories: [String]
    /// Characteristics left out of discovery: a characteristic slug (`status_tampered`, every accessory)
    /// or a topic path `<accessory>/<service>/<characteristic>`. An entity that needs an excluded
    /// characteristic loses that feature, or is not made when the characteristic is its main one.
    public var excludedCharacteristics: [String]
    /// The project page, for the `origin` block of every config; nil leaves it out.
    public var supportURL: String?
    /// The discovery format asked for; nil keeps the one the state directory records, which is
    /// `device` for a new installation. A format other than the recorded one is reached by Home
    /// Assistant's migration (`DiscoveryMigration`), never by publishing both.
    public var format: DiscoveryFormat?

    /// Home Assistant's defaults: discovery on under `homeassistant`, status on `homeassistant/status`,
    /// a birth delay of 1 to 5 seconds, nothing excluded, the recorded format. A trailing `/` of `prefix` is dropped.
    public init(
        discovery: Bool = true, prefix: String = "homeassistant", statusTopic: String = "homeassistant/status",
        birthDelay: ClosedRange<Duration> = .seconds(1)...(.seconds(5)), excludedAccessories: [String] = [],
        excludedCharacteristics: [String] = [], supportURL: String? = nil, format: DiscoveryFormat? = nil
    ) {
        var trimmed = prefix
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.discovery = discovery
        self.prefix = trimmed
        self.statusTopic = statusTopic
        self.birthDelay = birthDelay
        self.excludedAccessories = excludedAccessories
        self.excludedCharacteristics = excludedCharacteristics
        self.supportURL = supportURL
        self.format = format
    }

    /// Whether the accessory with this id and slug is left out.
    public func excludes(_ id: AccessoryID, slug: String) -> Bool {
        excludedAccessories.contains { $0 == slug || AccessoryID($0) == id }
    }

    /// Whether the characteristic at `<accessory>/<service>/<characteristic>` is left out.
    public func excludes(accessory: String, service: String, characteristic: String) -> Bool {
        excludedCharacteristics.contains { $0 == characteristic || $0 == "\(accessory)/\(service)/\(characteristic)" }
    }
}
