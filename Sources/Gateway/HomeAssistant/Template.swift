/// Home Assistant value and command templates (Jinja) for the places where HomeKit's encoding differs
/// from Home Assistant's: enumerations as integers on one side and words on the other.
enum Template {
    /// A value template turning HomeKit integers into Home Assistant words:
    /// `{{ {'0':'off','1':'heat'}.get(value, 'off') }}`; the payload arrives as text, so keys are text.
    /// Without a fallback an unknown integer passes through unchanged.
    static func words(_ pairs: [(Int, String)], fallback: String? = nil) -> String {
        let fallbackText = fallback.map { quoted($0) } ?? "value"
        return "{{ \(table(pairs.map { (quoted(String($0.0)), quoted($0.1)) })).get(value, \(fallbackText)) }}"
    }

    /// A command template turning Home Assistant words into HomeKit integers: `{{ {'off':0,'heat':1}[value] }}`.
    static func integers(_ pairs: [(Int, String)]) -> String {
        "{{ \(table(pairs.map { (quoted($0.1), String($0.0)) }))[value] }}"
    }

    /// A Jinja dict literal of already quoted keys and values.
    static func table(_ pairs: [(String, String)]) -> String {
        "{" + pairs.map { "\($0.0):\($0.1)" }.joined(separator: ",") + "}"
    }

    /// A Jinja string literal; names and slugs never hold quotes, and a stray one is dropped.
    static func quoted(_ text: String) -> String { "'" + text.filter { $0 != "'" && $0 != "\\" } + "'" }

    /// `value_json['<service>']['<characteristic>']`: one value of the accessory's JSON topic.
    static func json(_ service: String, _ characteristic: String) -> String {
        "value_json[\(quoted(service))][\(quoted(characteristic))]"
    }
}
