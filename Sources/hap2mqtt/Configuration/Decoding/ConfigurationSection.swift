/// Reads the settings of one mapping of the configuration (a section such as `mqtt`, or one entry of
/// `homekit.accessories`), remembering which keys were asked for so that `finish()` can report the
/// rest as unknown.
///
/// A key of a top-level section can be overridden by the environment: `mqtt.url` by
/// `HAP2MQTT_MQTT_URL`, the top-level `log_level` by `HAP2MQTT_LOG_LEVEL`.
struct ConfigurationSection {
    /// The dotted key path of the mapping (`mqtt`; empty for the file's top level).
    let path: String
    private let entries: [YAMLNode.Entry]
    private let source: ConfigurationLocation.Source
    private let environmentPrefix: String?
    private let decoder: ConfigurationDecoder
    private var known: [String] = []

    /// A section over `node` (a mapping, or nil/null for an absent one).
    /// - Throws: `ConfigurationError.wrongType` when `node` is a scalar or a list,
    ///   `ConfigurationError.duplicateKey` when a key is written twice.
    init(
        path: String, node: YAMLNode?, source: ConfigurationLocation.Source, environmentPrefix: String?,
        decoder: ConfigurationDecoder
    ) throws(ConfigurationError) {
        self.path = path
        self.source = source
        self.environmentPrefix = environmentPrefix
        self.decoder = decoder
        guard let node, !node.isNull else {
            entries = []
            return
        }
        guard case .mapping(let entries) = node.content else {
            let location = ConfigurationLocation(source: source, mark: node.mark)
            throw .wrongType(location, key: path, expected: "a mapping of settings", got: node.kindDescription)
        }
        self.entries = entries
        var firstLines: [String: Int] = [:]
        for entry in entries {
            if let first = firstLines[entry.key] {
                throw .duplicateKey(location(of: entry), key: keyPath(entry.key), firstLine: first)
            }
            firstLines[entry.key] = entry.keyMark.line
        }
    }

    /// `path.key`, or `key` at the top level.
    func keyPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The value set for `key` by the environment or the file, in that order; nil when neither sets it
    /// or the file leaves it empty (`key:`, `key: ~`, `key: null`), which means "use the default".
    mutating func value(_ key: String) -> ConfigurationValue? {
        known.append(key)
        if let prefix = environmentPrefix {
            let name = prefix + key.uppercased()
            if let text = decoder.variable(name) {
                return ConfigurationValue(
                    node: YAMLNode(.scalar(text, .doubleQuoted), at: YAMLMark(line: 1, column: 1)),
                    key: keyPath(key), source: .environment(name), decoder: decoder)
            }
        }
        guard let entry = entries.first(where: { $0.key == key }), !entry.value.isNull else { return nil }
        return ConfigurationValue(node: entry.value, key: keyPath(key), source: source, decoder: decoder)
    }

    /// Reads the nested section `key` with `body`, then reports its unknown keys. Its keys can be
    /// overridden from the environment when this is the top level.
    mutating func section<T>(
        _ key: String, _ body: (inout ConfigurationSection) throws(ConfigurationError) -> T
    ) throws(ConfigurationError) -> T {
        known.append(key)
        let node = entries.first { $0.key == key }?.value
        let prefix = path.isEmpty ? environmentPrefix.map { $0 + key.uppercased() + "_" } : nil
        var section = try ConfigurationSection(
            path: keyPath(key), node: node, source: source, environmentPrefix: prefix, decoder: decoder)
        let result = try body(&section)
        try section.finish()
        return result
    }

    /// The error for settings of this section that conflict with each other when none of them is set
    /// here (a default conflicts with another section's key); `problem` is the whole line after the file.
    func invalid(_ problem: String) -> ConfigurationError {
        .invalidValue(ConfigurationLocation(source: source, mark: nil), key: "", problem: problem)
    }

    /// Reports the first key that no reader asked for.
    /// - Throws: `ConfigurationError.unknownKey`, with the nearest known key when it is close.
    func finish() throws(ConfigurationError) {
        for entry in entries where !known.contains(entry.key) {
            throw .unknownKey(
                location(of: entry), key: keyPath(entry.key),
                suggestion: KeySuggestion.nearest(to: entry.key, among: known))
        }
    }

    private func location(of entry: YAMLNode.Entry) -> ConfigurationLocation {
        switch source {
        case .file: return ConfigurationLocation(source: source, mark: entry.keyMark)
        case .environment: return ConfigurationLocation(source: source, mark: nil)
        }
    }
}
