import SystemSupport
extension Configuration: CustomStringConvertible {
    /// Every setting under its YAML key, for `bridge/info` (docs/DESIGN.md "Topics") and for logs. The
    /// password shows as `***` when one is set (from `mqtt.password` or `mqtt.password_file`); the
    /// paths of files are shown, never what secret files hold. Times are in seconds.
    var redactedSummary: ConfigurationSummary {
        .object([
            .init("mqtt", mqtt.summary),
            .init("homekit", homekit.summary),
            .init("home", .object([.init("name", .text(home.name)), .init("rooms", .texts(home.rooms))])),
            .init("homeassistant", homeassistant.summary),
            .init("log_level", .text(logLevel.description)),
        ])
    }

    /// The redacted summary as one line of JSON.
    var description: String { redactedSummary.json }
}

extension MQTTSettings {
    fileprivate var summary: ConfigurationSummary {
        .object([
            .init("url", .text(url.description)),
            .init("base_topic", .text(baseTopic)),
            .init("client_id", .text(clientID)),
            .init("protocol", .text(protocolVersion.rawValue)),
            .init("username", .text(username ?? "")),
            .init("password", .text(password == nil ? "" : "***")),
            .init("password_file", .text(passwordFile ?? "")),
            .init("ca_file", .text(caFile ?? "")),
            .init("cert_file", .text(certFile ?? "")),
            .init("key_file", .text(keyFile ?? "")),
            .init("keepalive", .number(Double(keepalive))),
            .init("qos", .number(Double(qos.rawValue))),
            .init("max_command_size", .number(Double(maxCommandSize))),
            .init("session_expiry", .number(sessionExpiry.inSeconds)),
        ])
    }
}

extension HomeKitSettings {
    fileprivate var summary: ConfigurationSummary {
        let overrides = accessories.sorted { $0.key < $1.key }.map { id, override in
            var members: [ConfigurationSummary.Member] = []
            if let name = override.name { members.append(.init("name", .text(name))) }
            if let room = override.room { members.append(.init("room", .text(room))) }
            if let home = override.home { members.append(.init("home", .text(home))) }
            if override.exclude { members.append(.init("exclude", .bool(true))) }
            return ConfigurationSummary.Member(id.description, .object(members))
        }
        return .object([
            .init("state_dir", .text(stateDirectory)),
            .init("poll_interval", .number(pollInterval.inSeconds)),
            .init("catchup_interval", .number(catchupInterval.inSeconds)),
            .init("write_timeout", .number(writeTimeout.inSeconds)),
            .init("keepalive_interval", .number(keepaliveInterval.inSeconds)),
            .init("snapshot_interval", .number(snapshotInterval.inSeconds)),
            .init("discovery", .bool(discovery)),
            .init("accessories", .object(overrides)),
        ])
    }
}

extension HomeAssistantSettings {
    fileprivate var summary: ConfigurationSummary {
        .object([
            .init("discovery", .bool(discovery)),
            .init("prefix", .text(prefix)),
            .init("status_topic", .text(statusTopic)),
            .init("birth_delay_min", .number(birthDelayMin.inSeconds)),
            .init("birth_delay_max", .number(birthDelayMax.inSeconds)),
            .init("exclude_accessories", .texts(excludeAccessories)),
            .init("exclude_characteristics", .texts(excludeCharacteristics)),
        ])
    }
}
