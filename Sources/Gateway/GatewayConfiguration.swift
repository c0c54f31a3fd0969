public import MQTT
public import SystemSupport

/// What the gateway needs to know besides the store and the MQTT client.
public struct GatewayConfiguration: Sendable {
    /// The base topic (docs/DESIGN.md "Topics"), default `hap2mqtt`.
    public var baseTopic: String
    /// QoS of state, JSON and result messages; availability and `bridge/state` are always QoS 1.
    public var stateQoS: MQTTQoS
    /// The program's version, for `bridge/info`.
    public var version: String
    /// Where the slug map is kept; nil keeps it in memory (tests).
    public var stateDirectory: StateDirectory?
    /// The MQTT settings for `bridge/info`, without secrets (url without credentials, client id, protocol).
    public var mqttSummary: [String: String]
    /// The configuration without secrets, as a JSON object, for `bridge/info`.
    public var configurationJSON: String?
    /// Home Assistant MQTT discovery and birth-message handling.
    public var homeAssistant: HomeAssistantConfiguration
    /// How often a camera's snapshot is fetched and published on its `…/snapshot` topic (and once at
    /// start); zero fetches one only when asked (`…/snapshot/get`).
    public var snapshotInterval: Duration
    /// The largest command payload taken, in bytes (`mqtt.max_command_size`, default 64 KiB); a larger
    /// one is refused with an error result (docs/DESIGN.md "Hostile input").
    public var maxCommandSize: Int
    /// How often the inbound counts are logged when they grew.
    public var healthInterval: Duration
    /// How often `bridge/health` is published (`mqtt.health_interval`, default 600 s); also on start and
    /// on every `health_check` request.
    public var bridgeHealthInterval: Duration
    /// The topic filters an MQTT 5 response topic must match to be answered on (`mqtt.response_topics`,
    /// docs/security.md "Response topics"); nil for the default, `<base>/response/#`. The refusals of
    /// `ResponseTopicPolicy` apply to a topic that matches one all the same.
    public var responseTopics: [String]?
    /// This gateway's claim on the base topic, carried in `bridge/state` and its last will
    /// (docs/DESIGN.md "Owning the base topic"); nil claims nothing.
    public var claim: BaseTopicClaim?

    public init(
        baseTopic: String = "hap2mqtt", stateQoS: MQTTQoS = .atLeastOnce, version: String = "0.0.0",
        stateDirectory: StateDirectory? = nil, mqttSummary: [String: String] = [:], configurationJSON: String? = nil,
        homeAssistant: HomeAssistantConfiguration = HomeAssistantConfiguration(),
        snapshotInterval: Duration = .seconds(60),
        maxCommandSize: Int = GatewayConfiguration.defaultMaxCommandSize, healthInterval: Duration = .seconds(60),
        bridgeHealthInterval: Duration = .seconds(600), responseTopics: [String]? = nil,
        claim: BaseTopicClaim? = nil
    ) {
        self.claim = claim
        self.bridgeHealthInterval = bridgeHealthInterval
        self.responseTopics = responseTopics
        self.baseTopic = baseTopic
        self.stateQoS = stateQoS
        self.version = version
        self.stateDirectory = stateDirectory
        self.mqttSummary = mqttSummary
        self.configurationJSON = configurationJSON
        self.homeAssistant = homeAssistant
        self.snapshotInterval = snapshotInterval
        self.maxCommandSize = maxCommandSize
        self.healthInterval = healthInterval
    }

    /// The response topics answered when `responseTopics` is nil: `<base>/response/#`, a prefix where
    /// only answers go (`Slug.reserved` keeps accessories out of it). A client that may publish commands
    /// under `<base>/` can be given it without giving it any topic of another program.
    public static func defaultResponseTopicFilter(baseTopic: String) -> String {
        TopicScheme(base: baseTopic).base + "/" + Slug.responseLevel + "/#"
    }

    /// 64 KiB: far above any real command (the largest, a multi-write of a whole accessory, is a few KB).
    public static let defaultMaxCommandSize = 64 * 1024
}
