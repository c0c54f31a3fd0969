import Gateway
import HomeStore
import JSON
import Logging
import Web

/// SIGHUP in `hap2mqtt run`: reads the configuration file and the environment again and applies what can
/// change while running (docs/command-line.md "Signals"):
///
/// - `log_level` (unless `--log-level` was given, which wins) and `mqtt_log_level`;
/// - the `name`, `room` and `home` of `homekit.accessories` (the accessories are placed again, their
///   slugs and topics stay);
/// - `homeassistant.discovery`, the birth delays and the exclusions (configs are published or cleared),
///   and `homeassistant.discovery_format` (a change migrates the configs);
/// - the web page's token (`frontend.auth_token`, or the file `frontend.auth_token_file` names, read
///   again): a new one ends every session of the old one.
///
/// Everything else (the broker, the base topic, the state directory, intervals, `exclude`, the `home`
/// section, the discovery prefix and status topic) keeps its running value until a restart. One line
/// reports the reload: what it applied and the changed keys that wait for a restart. A configuration that does not load is logged and changes nothing.
actor ConfigurationReload {
    /// The keys that a reload applies; every other changed key needs a restart.
    static let reloadable: Set<String> = [
        "log_level", "mqtt_log_level", "homekit.accessories", "homeassistant.discovery",
        "homeassistant.birth_delay_min",
        "homeassistant.birth_delay_max", "homeassistant.exclude_accessories", "homeassistant.exclude_characteristics",
        "homeassistant.discovery_format", "frontend.auth_token",
    ]

    private var running: Configuration
    private let options: GlobalOptions
    private let environment: [String: String]
    private let store: HomeStore
    private let gateway: Gateway
    private let webPage: WebPage?
    private let logger: Logger

    /// A reload of `running` (the configuration `run` started with) as `options` (`--config`,
    /// `--log-level`) and `environment` name it.
    init(
        running: Configuration, options: GlobalOptions, environment: [String: String], store: HomeStore,
        gateway: Gateway, webPage: WebPage? = nil,
        logger: Logger
    ) {
        self.webPage = webPage
        self.running = running
        self.options = options
        self.environment = environment
        self.store = store
        self.gateway = gateway
        self.logger = logger
    }

    /// Loads the configuration again and applies what is safe to apply.
    func reload() async {
        let new: Configuration
        do throws(ConfigurationError) {
            new = try Configuration.load(path: options.configPath, environment: environment).configuration
        } catch {
            logger.error("received SIGHUP; cannot reload the configuration: \(error); the running configuration stays")
            return
        }
        var applied = running
        applied.logLevel = new.logLevel
        applied.mqttLogLevel = new.mqttLogLevel
        applied.homekit.accessories = new.homekit.accessories.mapValues { settings in
            var kept = settings
            kept.exclude = false
            return kept
        }
        // `exclude` decides which accessories a provider reports at all: it keeps its running value.
        for (id, settings) in running.homekit.accessories where settings.exclude {
            applied.homekit.accessories[id, default: AccessorySettings()].exclude = true
        }
        applied.homeassistant.discovery = new.homeassistant.discovery
        applied.homeassistant.birthDelayMin = new.homeassistant.birthDelayMin
        applied.homeassistant.birthDelayMax = new.homeassistant.birthDelayMax
        applied.homeassistant.excludeAccessories = new.homeassistant.excludeAccessories
        applied.homeassistant.excludeCharacteristics = new.homeassistant.excludeCharacteristics
        applied.homeassistant.discoveryFormat = new.homeassistant.discoveryFormat
        if let webPage, new.frontend.authToken != running.frontend.authToken {
            do throws(WebPageError) {
                try webPage.replaceToken(new.frontend.authToken?.reveal)
                applied.frontend.authToken = new.frontend.authToken
                applied.frontend.authTokenFile = new.frontend.authTokenFile
            } catch {
                logger.error("received SIGHUP; the web page keeps its token: \(error)")
            }
        }

        let changed = Self.changedKeys(from: running, to: applied)
        let needRestart = Self.changedKeys(from: applied, to: new).map {
            $0 == "homekit.accessories" ? "homekit.accessories[…].exclude" : $0
        }
        let old = running
        running = applied

        if changed.contains("log_level") || changed.contains("mqtt_log_level") {
            if let level = options.logLevel, changed.contains("log_level") {
                logger.notice(
                    "log_level in the configuration is now \(new.logLevel); --log-level \(level) on the command line still wins"
                )
            }
            LogSystem.bootstrap(
                LogLineWriter().sink(minimumLevel: options.logLevel ?? new.logLevel, bridgeLevel: new.mqttLogLevel))
        }
        if applied.homekit.accessories != old.homekit.accessories {
            var storeConfiguration = applied.homeStoreConfiguration
            storeConfiguration.writeTimeout = old.homekit.writeTimeout
            await store.configure(storeConfiguration)
        }
        if applied.homeassistant != old.homeassistant || applied.homekit.accessories != old.homekit.accessories {
            await gateway.reconfigure(
                homeAssistant: applied.homeAssistantConfiguration,
                configurationJSON: applied.redactedSummary.description)
        }
        let (level, text) = Self.report(applied: changed, needRestart: needRestart)
        logger.log(level, text)
    }

    /// The one line a reload logs: what it applied and what waits for a restart, so that neither half
    /// contradicts the other ("nothing changed" above a changed password). A warning when something
    /// waits for a restart.
    static func report(applied: [String], needRestart: [String]) -> (LogLevel, String) {
        var text = "received SIGHUP; reloaded the configuration: "
        switch (applied.isEmpty, needRestart.isEmpty) {
        case (true, true): return (.notice, text + "nothing changed")
        case (true, false): text += "nothing applied now"
        case (false, _): text += "applied " + applied.joined(separator: ", ")
        }
        guard !needRestart.isEmpty else { return (.notice, text) }
        return (.warning, text + "; changed but applied only by a restart: " + needRestart.joined(separator: ", "))
    }

    /// The dotted keys (`mqtt.url`, `homekit.accessories`, `log_level`) whose values differ, in the order
    /// of the file. The password counts by its value, which the summary hides.
    static func changedKeys(from old: Configuration, to new: Configuration) -> [String] {
        var keys: [String] = []
        let before = flattened(old.redactedSummary)
        for (key, value) in flattened(new.redactedSummary) where before.first(where: { $0.key == key })?.value != value
        {
            keys.append(key)
        }
        if old.mqtt.password != new.mqtt.password, !keys.contains("mqtt.password") { keys.append("mqtt.password") }
        if old.frontend.authToken != new.frontend.authToken, !keys.contains("frontend.auth_token") {
            keys.append("frontend.auth_token")
        }
        return keys
    }

    /// The summary's settings as (dotted key, value), one level into each section.
    private static func flattened(_ summary: JSONValue) -> [(key: String, value: JSONValue)] {
        guard case .object(let sections) = summary else { return [] }
        var result: [(key: String, value: JSONValue)] = []
        for section in sections {
            if case .object(let members) = section.value {
                for member in members { result.append(("\(section.key).\(member.key)", member.value)) }
            } else {
                result.append((section.key, section.value))
            }
        }
        return result
    }
}
