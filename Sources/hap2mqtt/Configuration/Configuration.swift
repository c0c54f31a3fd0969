import Logging

/// The program's settings: the YAML file (default `Config/hap2mqtt.yaml`, or `--config PATH`), then
/// `HAP2MQTT_<SECTION>_<KEY>` environment variables over it; every key has a default
/// (docs/DESIGN.md "Configuration and files"). `Config/hap2mqtt.example.yaml` documents every key.
///
/// Paths in the file (`homekit.state_dir`, `mqtt.password_file`, TLS files) are relative to the
/// working directory, as a command line would take them.
struct Configuration: Sendable, Hashable {
    /// The file read when no `--config` is given. When it does not exist the defaults apply (with
    /// the environment's overrides), so `hap2mqtt run` works without any file; a file named with
    /// `--config` must exist.
    static let defaultPath = "Config/hap2mqtt.yaml"
    /// The example file that documents every key, named when the default file is missing.
    static let examplePath = "Config/hap2mqtt.example.yaml"

    /// The top-level sections, in the order the file documents them.
    static let sections = ["mqtt", "homekit", "home", "homeassistant", "frontend"]

    var mqtt = MQTTSettings()
    var homekit = HomeKitSettings()
    var home = HomeSettings()
    var homeassistant = HomeAssistantSettings()
    var frontend = FrontendSettings()
    /// `log_level`: the lowest level logged (`--log-level` overrides it).
    var logLevel = LogLevel.info
    /// `mqtt_log_level`: the lowest level published on `bridge/logging` (docs/DESIGN.md "Topics").
    var mqttLogLevel = LogLevel.warning
    /// `standby`: when another gateway holds the base topic at start, wait for its claim to be released
    /// and then take over, instead of refusing to start (docs/DESIGN.md "Owning the base topic").
    var standby = false

    /// The defaults.
    init() {}

    /// Reads the configuration file at `path` (nil: `defaultPath`, which may be missing) and applies
    /// the `HAP2MQTT_*` variables of `environment` over it. Tests pass their own `defaultPath`.
    /// - Returns: the configuration, the file that was read (nil when the default file is missing),
    ///   and warnings for `HAP2MQTT_*` variables that name no setting.
    /// - Throws: `ConfigurationError`, one line naming the file or variable, the key and the problem.
    static func load(
        path: String?, environment: [String: String], defaultPath: String = Configuration.defaultPath
    ) throws(ConfigurationError) -> LoadedConfiguration {
        let file = path ?? defaultPath
        guard FileBytes.exists(file) else {
            if path != nil { throw .fileNotFound(path: file) }
            let (configuration, warnings) = try decode(nil, file: file, environment: environment)
            return LoadedConfiguration(configuration: configuration, file: nil, warnings: warnings)
        }
        let bytes: [UInt8]
        switch FileBytes.read(file) {
        case .success(let read): bytes = read
        case .failure(let reason): throw .unreadableFile(path: file, reason: reason.description)
        }
        let root: YAMLNode
        do throws(YAMLError) { root = try YAMLReader.parse(bytes, source: file) } catch { throw .syntax(error) }
        let (configuration, warnings) = try decode(root, file: file, environment: environment)
        return LoadedConfiguration(configuration: configuration, file: file, warnings: warnings)
    }

    /// Reads a configuration from a parsed YAML document (nil: no file) named `file` in errors.
    /// - Throws: `ConfigurationError` as `load` does, except for reading the file.
    static func decode(
        _ root: YAMLNode?, file: String, environment: [String: String]
    ) throws(ConfigurationError) -> (Configuration, warnings: [String]) {
        let decoder = ConfigurationDecoder(environment: environment)
        let configuration = try decode(root, file: file, decoder: decoder)
        return (configuration, decoder.unusedVariableWarnings())
    }

    /// Every setting's environment variable (`HAP2MQTT_MQTT_URL`, …, `HAP2MQTT_LOG_LEVEL`), in the
    /// order the sections read them.
    static var environmentVariables: [String] {
        let decoder = ConfigurationDecoder(environment: [:])
        _ = try? decode(nil, file: "", decoder: decoder)
        return decoder.settingVariables
    }

    private static func decode(
        _ root: YAMLNode?, file: String, decoder: ConfigurationDecoder
    ) throws(ConfigurationError) -> Configuration {
        if let root, !root.isNull {
            guard case .mapping = root.content else { throw topLevelNotMapping(root, file: file) }
        }
        var top = try ConfigurationSection(
            path: "", node: root, source: .file(file), environmentPrefix: ConfigurationDecoder.environmentPrefix,
            decoder: decoder)
        var configuration = Configuration()
        configuration.mqtt = try top.section("mqtt") { s throws(ConfigurationError) in try MQTTSettings(reading: &s) }
        configuration.homekit = try top.section("homekit") { s throws(ConfigurationError) in
            try HomeKitSettings(reading: &s)
        }
        configuration.home = try top.section("home") { s throws(ConfigurationError) in try HomeSettings(reading: &s) }
        configuration.homeassistant = try top.section("homeassistant") { s throws(ConfigurationError) in
            try HomeAssistantSettings(reading: &s, baseTopic: configuration.mqtt.baseTopic)
        }
        configuration.frontend = try top.section("frontend") { s throws(ConfigurationError) in
            try FrontendSettings(reading: &s)
        }
        let names = LogLevel.allCases.map(\.description).joined(separator: ", ")
        if let value = top.value("log_level") {
            guard let level = try LogLevel(name: value.text()) else { throw value.wrongType("one of \(names)") }
            configuration.logLevel = level
        }
        if let value = top.value("mqtt_log_level") {
            guard let level = try LogLevel(name: value.text()) else { throw value.wrongType("one of \(names)") }
            configuration.mqttLogLevel = level
        }
        if let value = top.value("standby") { configuration.standby = try value.bool() }
        try top.finish()
        return configuration
    }

    private static func topLevelNotMapping(_ root: YAMLNode, file: String) -> ConfigurationError {
        .wrongType(
            ConfigurationLocation(source: .file(file), mark: root.mark), key: "",
            expected: "a mapping of sections (\(sections.joined(separator: ", ")), log_level, mqtt_log_level, standby)",
            got: root.kindDescription)
    }
}

/// What `Configuration.load` found.
struct LoadedConfiguration: Sendable, Hashable {
    /// The settings.
    var configuration: Configuration
    /// The file that was read; nil when the default file does not exist and only the defaults and
    /// the environment apply.
    var file: String?
    /// One line per `HAP2MQTT_*` environment variable that names no setting (they are ignored).
    var warnings: [String]
}
