/// Where a setting came from: a position in the configuration file, or an environment variable.
struct ConfigurationLocation: Sendable, Hashable, CustomStringConvertible {
    /// The file or the environment variable.
    enum Source: Sendable, Hashable {
        case file(String)
        case environment(String)
    }

    var source: Source
    /// The position in the file; nil for environment variables and for the file as a whole.
    var mark: YAMLMark?

    /// `PATH:LINE:COLUMN`, `PATH`, or `environment variable NAME`.
    var description: String {
        switch source {
        case .file(let path): return mark.map { "\(path):\($0)" } ?? path
        case .environment(let name): return "environment variable \(name)"
        }
    }
}

/// The configuration could not be loaded. Every case prints as one line that names the file (or the
/// environment variable), the position where known, and the setting as a dotted key path
/// (`mqtt.protocol`, `homekit.accessories["AA:BB:CC:DD:EE:FF/2"].room`, `home.rooms[1]`). The program
/// prints it after `hap2mqtt: ` and exits with status 2.
///
/// No case ever carries a secret: values of `password` and of files read for secrets are never quoted.
enum ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file given with `--config` does not exist.
    case fileNotFound(path: String)
    /// The file exists but cannot be read: permissions, a directory, an I/O error.
    case unreadableFile(path: String, reason: String)
    /// The file (or an environment variable holding a list or mapping) is not valid YAML.
    case syntax(YAMLError)
    /// A key the configuration does not have; `suggestion` is the nearest known key when one is close.
    case unknownKey(ConfigurationLocation, key: String, suggestion: String?)
    /// A key written twice in one mapping; `firstLine` is where it was first.
    case duplicateKey(ConfigurationLocation, key: String, firstLine: Int)
    /// A value of the wrong kind: text where a number belongs, a list where text belongs.
    case wrongType(ConfigurationLocation, key: String, expected: String, got: String)
    /// A value of the right kind that is not allowed: a negative timeout, a bad URL scheme, an
    /// unreadable secret file, a minimum above its maximum.
    case invalidValue(ConfigurationLocation, key: String, problem: String)

    var description: String {
        switch self {
        case .fileNotFound(let path):
            return "\(path): configuration file not found"
        case .unreadableFile(let path, let reason):
            return "\(path): cannot read configuration file: \(reason)"
        case .syntax(let error):
            return error.description
        case .unknownKey(let location, let key, let suggestion):
            return "\(location): \(key): unknown key" + (suggestion.map { "; did you mean \($0)?" } ?? "")
        case .duplicateKey(let location, let key, let firstLine):
            return "\(location): \(key): set twice (first on line \(firstLine))"
        case .wrongType(let location, let key, let expected, let got):
            return "\(location): \(Self.prefix(key))expected \(expected), got \(got)"
        case .invalidValue(let location, let key, let problem):
            return "\(location): \(Self.prefix(key))\(problem)"
        }
    }

    private static func prefix(_ key: String) -> String { key.isEmpty ? "" : "\(key): " }
}
