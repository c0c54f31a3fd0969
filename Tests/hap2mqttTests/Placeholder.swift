import Testing
@testable import hap2mqtt
@Test func v() { #expect(Hap2mqtt.version == "0.1.0") }
