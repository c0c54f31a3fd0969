import MQTT

/// Which MQTT 5 response topics the gateway answers on (docs/DESIGN.md "Hostile input", docs/security.md
/// "Response topics"). A command's response topic is chosen by whoever sent the command, and the gateway
/// publishes there with its own rights on the broker: without these rules a client allowed to publish
/// commands could make the gateway write where the broker's ACL would not let the client write, such as
/// another program's command topic, `<base>/bridge/state` or a Home Assistant discovery config.
///
/// A response topic is answered on only when it matches one of the `allowed` topic filters
/// (`mqtt.response_topics`, by default `<base>/response/#`) and none of the fixed refusals holds, which
/// no configuration lifts: a topic that is no valid topic name (empty, a wildcard, NUL, too long); a
/// topic starting with `$` (the broker's own); a topic under the base topic other than under
/// `<base>/response/`, the prefix kept for answers (`Slug.reserved` keeps accessories out of it);
/// anything under the Home Assistant discovery prefix, and Home Assistant's status topic; and a topic
/// the gateway takes commands on, whose answer would come back to it as a command.
struct ResponseTopicPolicy: Sendable {
    let topics: TopicScheme
    let discoveryPrefix: String
    let statusTopic: String
    /// The topic filters a response topic must match (MQTT 5 §4.7); empty answers on none.
    let allowed: [String]

    /// The prefix under the base topic where answers may go: `<base>/response/`.
    var responsePrefix: String { topics.base + "/" + Slug.responseLevel + "/" }

    /// Why the gateway will not publish an answer on `topic`; nil when it will.
    func refusal(of topic: String) -> String? {
        do throws(MQTTError) {
            try MQTTTopic.validateName(topic)
        } catch {
            guard case .invalidTopic(let why) = error else { return "\(error)" }
            return "the response topic is not a valid topic name: \(why)"
        }
        if topic.hasPrefix("$") { return "the response topic starts with $, which is the broker's" }
        if topics.command(for: topic) != nil || topic == statusTopic {
            return "the response topic is one the gateway takes commands on"
        }
        if Self.isUnder(topic, discoveryPrefix) {
            return "the response topic is under Home Assistant's discovery prefix \(discoveryPrefix)/"
        }
        if Self.isUnder(topic, topics.base), !topic.hasPrefix(responsePrefix) {
            return
                "the response topic is under the gateway's base topic \(topics.base)/ but not under \(responsePrefix)"
        }
        guard allowed.contains(where: { MQTTTopic.matches(filter: $0, topic: topic) }) else {
            let list = allowed.isEmpty ? "no response topics are answered" : allowed.joined(separator: ", ")
            return "the response topic matches none of mqtt.response_topics (\(list))"
        }
        return nil
    }

    /// Whether `topic` is `prefix` or below it.
    private static func isUnder(_ topic: String, _ prefix: String) -> Bool {
        topic == prefix || topic.hasPrefix(prefix + "/")
    }
}
