/// What every section shares while one configuration is decoded: the environment, and which
/// `HAP2MQTT_*` variables the sections looked up, so the ones nobody asked for can be reported.
///
/// Used by one decode on one thread and then dropped; never shared.
final class ConfigurationDecoder {
    /// Every environment variable name starts with this.
    static let environmentPrefix = "HAP2MQTT_"

    private let environment: [String: String]
    private var lookedUp: [String] = []

    init(environment: [String: String]) { self.environment = environment }

    /// The variable's value, remembering that `name` is a setting.
    func variable(_ name: String) -> String? {
        lookedUp.append(name)
        return environment[name]
    }

    /// Every variable name looked up so far, in the order the settings were read.
    var settingVariables: [String] { lookedUp }

    /// One warning per `HAP2MQTT_*` variable that names no setting, with the nearest real name when
    /// one is close (a typo in an override would otherwise be silently ignored).
    func unusedVariableWarnings() -> [String] {
        let known = Set(lookedUp)
        return environment.keys
            .filter { $0.hasPrefix(Self.environmentPrefix) && !known.contains($0) }
            .sorted()
            .map { name in
                let hint = KeySuggestion.nearest(to: name, among: lookedUp).map { "; did you mean \($0)?" } ?? ""
                return "environment variable \(name) is not a hap2mqtt setting and is ignored\(hint)"
            }
    }
}
