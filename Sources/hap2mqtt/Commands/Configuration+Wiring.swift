import Gateway
import HomeModel
import HomeStore
import MQTT
import SystemSupport
import Web

/// How the configuration becomes the settings of each part.
extension Configuration {
    /// The MQTT client's settings, with the last will on `bridge/state` (carrying `claim`, the gateway's
    /// claim on the base topic).
    func mqttClientConfiguration(claim: BaseTopicClaim? = nil) -> MQTTConfiguration {
        var c = MQTTConfiguration(url: mqtt.url.description, clientID: mqtt.clientID)
        c.clientIDSetting = "mqtt.client_id"
        c.protocolVersion = mqtt.protocolVersion == .v5 ? .v5 : .v311
        c.username = mqtt.username
        c.password = mqtt.password?.reveal
        c.tls.caFile = mqtt.caFile
        c.tls.certFile = mqtt.certFile
        c.tls.keyFile = mqtt.keyFile
        c.keepAlive = mqtt.keepalive
        // A standby pair starts clean: a command queued for this gateway while its peer held the base topic
        // was the peer's to answer, and must not run twice (docs/DESIGN.md "Owning the base topic").
        c.sessionExpiry = mqtt.sessionExpiry > .zero && !standby ? mqtt.sessionExpiry : nil
        c.will = Gateway.lastWill(baseTopic: mqtt.baseTopic, claim: claim)
        // A flood of commands costs bounded memory (docs/DESIGN.md "Hostile input"): a command over the
        // limit arrives without its payload, to be refused with an error result; unread commands are
        // bounded, repeated ones collapse.
        c.inbound = MQTTInboundLimits(
            maxPayloadSize: mqtt.maxCommandSize, maxMessages: Self.inboundCommands, maxBytes: Self.inboundBytes,
            collapses: Gateway.collapsesCommand(baseTopic: mqtt.baseTopic))
        return c
    }

    /// The most commands waiting for the gateway; more are dropped and counted (`bridge/health`).
    static let inboundCommands = 1_000
    /// The most bytes of commands waiting for the gateway.
    static let inboundBytes = 8 * 1024 * 1024

    /// The home store's settings: homes and rooms, per-accessory names and places, the write time-out.
    /// The homes are the `home` section's, with its rooms in the order written, then every other home
    /// and room an accessory is placed in, so that `bridge/info` lists every place in use.
    var homeStoreConfiguration: HomeStoreConfiguration {
        var c = HomeStoreConfiguration()
        c.homes = [home.home]
        c.writeTimeout = homekit.writeTimeout
        for (id, settings) in homekit.accessories.sorted(by: { $0.key.description < $1.key.description }) {
            c.overrides[id] = AccessoryOverride(name: settings.name, room: settings.room, home: settings.home)
            let homeName = settings.home ?? home.name
            if !c.homes.contains(where: { $0.name == homeName }) { c.homes.append(Home(name: homeName)) }
            if let room = settings.room, let index = c.homes.firstIndex(where: { $0.name == homeName }),
                !c.homes[index].rooms.contains(where: { $0.name == room })
            {
                c.homes[index].rooms.append(Room(name: room))
            }
        }
        return c
    }

    /// The gateway's settings; `bridge/info` gets the MQTT settings and the configuration without secrets.
    /// - Parameter claim: the gateway's claim on the base topic (`run`); nil claims nothing.
    func gatewayConfiguration(stateDirectory: StateDirectory, claim: BaseTopicClaim? = nil) -> GatewayConfiguration {
        GatewayConfiguration(
            baseTopic: mqtt.baseTopic, stateQoS: mqtt.qos, version: Hap2mqtt.version, stateDirectory: stateDirectory,
            mqttSummary: [
                "url": mqtt.url.description, "client_id": mqtt.clientID, "protocol": mqtt.protocolVersion.rawValue,
            ],
            configurationJSON: redactedSummary.description, homeAssistant: homeAssistantConfiguration,
            snapshotInterval: homekit.snapshotInterval, maxCommandSize: mqtt.maxCommandSize,
            bridgeHealthInterval: mqtt.healthInterval, responseTopics: mqtt.answeredResponseTopics, claim: claim)
    }

    /// Home Assistant discovery: on or off, the prefix, the status topic, the birth delay, the exclusions and
    /// the format.
    var homeAssistantConfiguration: HomeAssistantConfiguration {
        HomeAssistantConfiguration(
            discovery: homeassistant.discovery, prefix: homeassistant.prefix, statusTopic: homeassistant.statusTopic,
            birthDelay: homeassistant.birthDelay, excludedAccessories: homeassistant.excludeAccessories,
            excludedCharacteristics: homeassistant.excludeCharacteristics, format: homeassistant.discoveryFormat)
    }
}

extension Configuration {
    /// The web page's settings, nil when `frontend.enabled` is false.
    var frontendConfiguration: WebPageConfiguration? {
        guard frontend.enabled else { return nil }
        return WebPageConfiguration(
            host: frontend.host, port: UInt16(frontend.port), authToken: frontend.authToken?.reveal)
    }
}
