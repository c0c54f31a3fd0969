import JSON
import SystemSupport

extension Configuration: CustomStringConvertible {
    /// Every setting under its YAML key, in the order written here, for `bridge/info` (docs/DESIGN.md
    /// "Topics") and for logs. The password shows as `***` when one is set (from `mqtt.password` or
    /// `mqtt.password_file`); the paths of files are shown, never what secret files hold. Times are in
    /// seconds. Build it only from values that may be shown.
    var redactedSummary: JSONValue {
        [
            "mqtt": mqtt.summary,
            "homekit": homekit.summary,
            "home": ["name": .string(home.name), "rooms": .texts(home.rooms)],
            "homeassistant": homeassistant.summary,
            "frontend": frontend.summary,
            "log_level": .string(logLevel.description),
            "mqtt_log_level": .string(mqttLogLevel.description),
            "standby": .bool(standby),
        ]
    }

    /// The redacted summary as one line of JSON.
    var description: String { redactedSummary.description }
}

extension MQTTSettings {
    fileprivate var summary: JSONValue {
        [
            "url": .string(url.description),
            "base_topic": .string(baseTopic),
            "client_id": .string(clientID),
            "protocol": .string(protocolVersion.rawValue),
            "username": .string(username ?? ""),
            "password": .string(password == nil ? "" : "***"),
            "password_file": .string(passwordFile ?? ""),
            "ca_file": .string(caFile ?? ""),
            "cert_file": .string(certFile ?? ""),
            "key_file": .string(keyFile ?? ""),
            "keepalive": JSONValue(keepalive),
            "qos": JSONValue(Int(qos.rawValue)),
            "max_command_size": JSONValue(maxCommandSize),
            "session_expiry": .double(sessionExpiry.inSeconds),
            "health_interval": .double(healthInterval.inSeconds),
            "response_topics": .texts(answeredResponseTopics),
        ]
    }
}

extension HomeKitSettings {
    fileprivate var summary: JSONValue {
        let overrides = accessories.sorted { $0.key < $1.key }.map { id, override in
            var members: JSONObject = [:]
            if let name = override.name { members["name"] = .string(name) }
            if let room = override.room { members["room"] = .string(room) }
            if let home = override.home { members["home"] = .string(home) }
            if override.exclude { members["exclude"] = true }
            return JSONObject.Member(key: id.description, value: .object(members))
        }
        return [
            "state_dir": .string(stateDirectory),
            "poll_interval": .double(pollInterval.inSeconds),
            "catchup_interval": .double(catchupInterval.inSeconds),
            "write_timeout": .double(writeTimeout.inSeconds),
            "keepalive_interval": .double(keepaliveInterval.inSeconds),
            "snapshot_interval": .double(snapshotInterval.inSeconds),
            "discovery": .bool(discovery),
            "accessories": .object(JSONObject(overrides)),
        ]
    }
}

extension HomeAssistantSettings {
    fileprivate var summary: JSONValue {
        [
            "discovery": .bool(discovery),
            "prefix": .string(prefix),
            "status_topic": .string(statusTopic),
            "birth_delay_min": .double(birthDelayMin.inSeconds),
            "birth_delay_max": .double(birthDelayMax.inSeconds),
            "exclude_accessories": .texts(excludeAccessories),
            "exclude_characteristics": .texts(excludeCharacteristics),
            "discovery_format": discoveryFormat.map { .string($0.rawValue) } ?? .null,
        ]
    }
}

extension JSONValue {
    /// A list of texts.
    fileprivate static func texts(_ items: [String]) -> JSONValue { .array(items.map { .string($0) }) }
}

extension FrontendSettings {
    /// The token never shows: `***` when one is set, and the file's path, never what it holds.
    fileprivate var summary: JSONValue {
        [
            "enabled": .bool(enabled),
            "host": .string(host),
            "port": JSONValue(port),
            "auth_token": .string(authToken == nil ? "" : "***"),
            "auth_token_file": .string(authTokenFile ?? ""),
        ]
    }
}
