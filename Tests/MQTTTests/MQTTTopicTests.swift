import MQTT
import Testing

@Suite("Topic names and filters (MQTT 5 §4.7)")
struct MQTTTopicTests {
    @Test(
        "filter matching",
        arguments: [
            ("a/b/c", "a/b/c", true), ("a/+/c", "a/b/c", true), ("a/+/c", "a/b/d", false), ("a/+", "a/b/c", false),
            ("a/#", "a", true), ("a/#", "a/b/c", true), ("#", "a/b", true), ("+/+", "a/b", true), ("+", "a/b", false),
            ("a/b", "a/b/c", false), ("a/b/c", "a/b", false), ("+/b", "/b", true), ("#", "$SYS/broker", false),
            ("+/broker", "$SYS/broker", false), ("$SYS/#", "$SYS/broker", true), ("a//c", "a//c", true),
            ("a/+/c", "a//c", true),
        ])
    func matching(filter: String, topic: String, expected: Bool) {
        #expect(MQTTTopic.matches(filter: filter, topic: topic) == expected)
    }

    @Test("valid filters pass, malformed ones name the rule they break")
    func filterValidation() throws {
        for filter in ["a/b", "+", "#", "a/+/c", "a/#", "+/+/#", "/", "$SYS/#"] {
            try MQTTTopic.validateFilter(filter)
        }
        #expect(throws: MQTTError.invalidTopic("\"a/#/b\": # must be a whole level and the last one")) {
            try MQTTTopic.validateFilter("a/#/b")
        }
        #expect(throws: MQTTError.invalidTopic("\"a/b+\": + must be a whole level")) {
            try MQTTTopic.validateFilter("a/b+")
        }
    }

    @Test("topic names refuse wildcards, NUL, emptiness and more than 65535 bytes")
    func nameValidation() throws {
        try MQTTTopic.validateName("hap2mqtt/kitchen_lamp/lightbulb/on")
        #expect(throws: MQTTError.invalidTopic("the topic is empty")) { try MQTTTopic.validateName("") }
        #expect(throws: MQTTError.invalidTopic("\"a\\0b\" contains a NUL character")) {
            try MQTTTopic.validateName("a\u{0}b")
        }
        #expect(throws: MQTTError.self) { try MQTTTopic.validateName("a/+") }
        #expect(throws: MQTTError.self) { try MQTTTopic.validateName(String(repeating: "é", count: 40_000)) }
    }
}
