/// Rules for topic names and topic filters (MQTT 5 §4.7).
public enum MQTTTopic {
    /// The longest topic or filter MQTT can carry: a two-byte length prefix (MQTT 5 §1.5.4).
    public static let maximumLength = 65_535

    /// Checks a topic name to publish to: not empty, at most 65,535 UTF-8 bytes, no NUL, no `+` or `#`
    /// (wildcards are for filters only, MQTT 5 §4.7.1).
    /// - Throws: `MQTTError.invalidTopic` saying which rule failed.
    public static func validateName(_ topic: String) throws(MQTTError) {
        try validateCommon(topic)
        if topic.utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "#") }) {
            throw .invalidTopic(
                "\(quoted(topic)) contains a wildcard (+ or #); wildcards are only allowed in subscriptions")
        }
    }

    /// Checks a topic filter to subscribe to: the rules of `validateName`, except that `+` may fill a
    /// whole level and `#` may be the whole last level (MQTT 5 §4.7.1.2, §4.7.1.3).
    /// - Throws: `MQTTError.invalidTopic` saying which rule failed.
    public static func validateFilter(_ filter: String) throws(MQTTError) {
        try validateCommon(filter)
        let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in levels.enumerated() {
            if level.contains("#") && (level != "#" || index != levels.count - 1) {
                throw .invalidTopic("\(quoted(filter)): # must be a whole level and the last one")
            }
            if level.contains("+") && level != "+" {
                throw .invalidTopic("\(quoted(filter)): + must be a whole level")
            }
        }
    }

    /// True when `topic` (a topic name) matches `filter` (MQTT 5 §4.7): `+` matches exactly one level,
    /// a final `#` matches any number of levels including none (`a/#` matches `a`), and a filter that
    /// starts with a wildcard does not match topics starting with `$` (§4.7.2).
    public static func matches(filter: String, topic: String) -> Bool {
        if topic.hasPrefix("$") && (filter.hasPrefix("+") || filter.hasPrefix("#")) { return false }
        let filterLevels = filter.split(separator: "/", omittingEmptySubsequences: false)
        let topicLevels = topic.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in filterLevels.enumerated() {
            if level == "#" { return true }
            guard index < topicLevels.count else { return false }
            if level != "+" && level != topicLevels[index] { return false }
        }
        return filterLevels.count == topicLevels.count
    }

    private static func validateCommon(_ text: String) throws(MQTTError) {
        if text.isEmpty { throw .invalidTopic("the topic is empty") }
        if text.utf8.count > maximumLength {
            throw .invalidTopic("the topic is \(text.utf8.count) bytes long; at most \(maximumLength) are allowed")
        }
        if text.utf8.contains(0) { throw .invalidTopic("\(quoted(text)) contains a NUL character") }
    }

    private static func quoted(_ text: String) -> String {
        let shown = text.count > 80 ? String(text.prefix(80)) + "…" : text
        let visible = shown.unicodeScalars.map { $0 == "\0" ? "\\0" : String($0) }.joined()
        return "\"\(visible)\""
    }
}
