import MQTT
import Testing

@testable import Gateway

/// Which retained payloads the gateway's scan of the broker keeps (`RetainedScan.keepsPayload`), and what
/// the scan makes of messages whose payload was not kept.
@Suite("The retained scan keeps only the payloads it reads again")
struct RetainedScanPayloadTests {
    @Test(
        "kept: bridge/accessories and characteristic state topics; not kept: discovery configs, accessory JSON, availability, bridge/, snapshots, other bases",
        arguments: [
            ("hap2mqtt/bridge/accessories", true),
            ("hap2mqtt/light/lightbulb/on", true),
            ("hap2mqtt/light/lightbulb/hs", true),
            ("hap2mqtt/light", false),
            ("hap2mqtt/light/availability", false),
            ("hap2mqtt/bridge/info", false),
            ("hap2mqtt/bridge/discovered", false),
            ("hap2mqtt/camera/camera/snapshot", false),
            ("hap2mqtt/light/lightbulb/on/set", false),
            ("hap2mqtt2/light/lightbulb/on", false),
            ("homeassistant/light/hap2mqtt_aa_bb/light/config", false),
        ])
    func kept(topic: String, kept: Bool) {
        #expect(RetainedScan.keepsPayload(of: topic, base: "hap2mqtt") == kept)
    }

    @Test("a message without its payload still counts as retained; its payload is not there to read")
    func droppedPayloadCounts() {
        var config = MQTTMessage(topic: "homeassistant/switch/n/o/config", string: "{}", retain: true)
        config.droppedPayloadSize = 2
        config.payload = []
        let state = MQTTMessage(topic: "hap2mqtt/light/lightbulb/on", string: "true", retain: true)
        let scan = RetainedScan([config, state])
        #expect(scan.topics == ["homeassistant/switch/n/o/config", "hap2mqtt/light/lightbulb/on"])
        #expect(scan.payloads.keys.sorted() == ["hap2mqtt/light/lightbulb/on"])
        #expect(scan.jsonValue(on: "hap2mqtt/light/lightbulb/on", format: .bool) == "true")
    }
}
