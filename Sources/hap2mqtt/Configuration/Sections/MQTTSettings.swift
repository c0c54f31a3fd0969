// swift-format-ignore-file: AlwaysUseLowerCamelCase
// Why: v3_1_1 is MQTT's version name, as mqtt.protocol spells it.

import Gateway
import MQTT

/// The `mqtt` section: the broker, the client's identity and credentials, TLS files, and the base
/// topic every hap2mqtt topic starts with (docs/DESIGN.md "Topics", "Configuration and files").
struct MQTTSettings: Sendable, Hashable {
    /// The MQTT protocol version to speak.
    enum ProtocolVersion: String, Sendable, Hashable {
        /// MQTT 3.1.1 (OASIS 2014), protocol level 4.
        case v3_1_1 = "3.1.1"
        /// MQTT 5.0 (OASIS 2019), protocol level 5.
        case v5 = "5"
    }

    /// `mqtt.url`: the broker; `mqtts://` means TLS.
    var url = MQTTBrokerURL(usesTLS: false, host: "127.0.0.1", port: 1883)
    /// `mqtt.base_topic`: the first level of every topic.
    var baseTopic = "hap2mqtt"
    /// `mqtt.client_id`.
    var clientID = "hap2mqtt"
    /// `mqtt.protocol`.
    var protocolVersion = ProtocolVersion.v5
    /// `mqtt.username`; nil when empty.
    var username: String?
    /// `mqtt.password`, or the content of `mqtt.password_file` without its trailing newline.
    var password: Secret?
    /// `mqtt.password_file`: where the password came from, when it came from a file.
    var passwordFile: String?
    /// `mqtt.ca_file`, `mqtt.cert_file` and `mqtt.key_file`, kept as one value.
    var tls = MQTTTLSFiles()
    /// `mqtt.keepalive` in seconds; 0 turns MQTT keep-alive off.
    var keepalive = 30
    /// `mqtt.qos`: the QoS of state messages.
    var qos = MQTTQoS.atLeastOnce
    /// `mqtt.max_command_size`: the largest command payload taken, in bytes; larger ones are refused.
    var maxCommandSize = 64 * 1024
    /// `mqtt.session_expiry`: how long the broker keeps the gateway's session (its subscriptions and
    /// the QoS 1 commands sent meanwhile) after a connection ends; zero starts clean every time
    /// (docs/DESIGN.md "Topics", the persistent session).
    var sessionExpiry = Duration.seconds(60)
    /// `mqtt.health_interval`: how often `bridge/health` is published (docs/topics.md
    /// "Managing the gateway over MQTT").
    var healthInterval = Duration.seconds(600)
    /// `mqtt.response_topics`: the topic filters an MQTT 5 response topic must match to be answered on
    /// (docs/security.md "Response topics"); nil for the default, `<base_topic>/response/#`.
    var responseTopics: [String]?

    /// The response topic filters in force: `mqtt.response_topics`, or `<base_topic>/response/#`.
    var answeredResponseTopics: [String] {
        responseTopics ?? [GatewayConfiguration.defaultResponseTopicFilter(baseTopic: baseTopic)]
    }

    /// `mqtt.ca_file`: the certificate authorities to trust, in PEM, instead of the system's.
    var caFile: String? {
        get { tls.caFile }
        set { tls.caFile = newValue }
    }
    /// `mqtt.cert_file`: a client certificate in PEM (with `keyFile`, or neither).
    var certFile: String? {
        get { tls.certFile }
        set { tls.certFile = newValue }
    }
    /// `mqtt.key_file`: the client certificate's private key in PEM.
    var keyFile: String? {
        get { tls.keyFile }
        set { tls.keyFile = newValue }
    }

    init() {}

    /// Reads the section, checking what belongs together: the URL's scheme and the TLS files, the
    /// certificate and its key, the password and the password file.
    /// - Throws: `ConfigurationError` for a bad value, an unreadable file, or settings that conflict.
    init(reading section: inout ConfigurationSection) throws(ConfigurationError) {
        if let value = section.value("url") { url = try MQTTBrokerURL(value) }
        if let value = section.value("base_topic") { baseTopic = try value.topic(allowsSlashAtEnds: false) }
        if let value = section.value("client_id") { clientID = try value.nonEmptyText() }
        if let value = section.value("protocol") { protocolVersion = try Self.protocolVersion(value) }
        username = try section.value("username")?.text().nonEmpty

        (password, passwordFile) = try section.secret("password", file: "password_file")

        var tlsFiles: [(key: String, value: ConfigurationValue)] = []
        for (key, field) in [("ca_file", \Self.caFile), ("cert_file", \.certFile), ("key_file", \.keyFile)] {
            guard let value = section.value(key), let path = try value.text().nonEmpty else { continue }
            try value.checkReadable(path)
            self[keyPath: field] = path
            tlsFiles.append((key, value))
        }
        if let first = tlsFiles.first, !url.usesTLS {
            throw first.value.invalid("is set but \(section.keyPath("url")) uses mqtt://; use mqtts:// for TLS")
        }
        for (key, partner) in [("cert_file", "key_file"), ("key_file", "cert_file")] {
            if let set = tlsFiles.first(where: { $0.key == key }), !tlsFiles.contains(where: { $0.key == partner }) {
                throw set.value.invalid("needs \(section.keyPath(partner)) too")
            }
        }

        if let value = section.value("keepalive") {
            let expected = "0 (off) or a whole number of seconds from 5 to 65535"
            let seconds = try value.integer(expected)
            guard seconds == 0 || (5...65535).contains(seconds) else {
                throw value.invalid("expected \(expected), got \(seconds)")
            }
            keepalive = seconds
        }
        if let value = section.value("session_expiry") {
            // MQTT 5's Session Expiry Interval counts whole seconds up to 4294967294 (§3.1.2.11.2); a week
            // is far beyond any outage worth queueing commands for.
            sessionExpiry = .seconds(try value.seconds(in: 0...604_800).components.seconds)
        }
        if let value = section.value("health_interval") {
            healthInterval = try value.seconds(in: 10...86_400)
        }
        if let value = section.value("response_topics") {
            responseTopics = try value.list().map { (item) throws(ConfigurationError) in
                try item.topicFilter()
            }
        }
        if let value = section.value("qos") {
            guard let level = try? value.integer("0, 1 or 2"), let qos = MQTTQoS(rawValue: Int32(clamping: level))
            else { throw value.wrongType("0, 1 or 2") }
            self.qos = qos
        }
        if let value = section.value("max_command_size") {
            let expected = "a number of bytes from 1024 to 268435455"
            let bytes = try value.integer(expected)
            guard (1024...268_435_455).contains(bytes) else {
                throw value.invalid("expected \(expected), got \(bytes)")
            }
            maxCommandSize = bytes
        }
    }

    /// `5`, `"5"`, `mqttv5` for MQTT 5; `3.1.1`, `311`, `mqttv311` and the protocol level `4` for 3.1.1.
    /// A YAML file cannot write 3.1.1 as a number, so it is always text here.
    private static func protocolVersion(_ value: ConfigurationValue) throws(ConfigurationError) -> ProtocolVersion {
        switch try? value.text().lowercased() {
        case "5", "5.0", "mqttv5": return .v5
        case "3.1.1", "311", "4", "mqttv311": return .v3_1_1
        default: throw value.wrongType("5 or 3.1.1")
        }
    }
}

extension String {
    /// nil for the empty string, which in the configuration means "not set".
    var nonEmpty: String? { isEmpty ? nil : self }
}
