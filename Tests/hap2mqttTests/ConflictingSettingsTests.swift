import Foundation
import Testing

@testable import hap2mqtt

/// Settings that cannot hold together name both keys, and topics the gateway builds on are limited in
/// length, so that no conflict passes unsaid.
@Suite("Conflicting settings and topic lengths")
struct ConflictingSettingsTests {
    @Test("every pair of settings that conflict names both keys")
    func pairs() throws {
        let files = try TemporaryFiles()
        defer { files.remove() }
        let secret = try files.write("s3cret\n", to: "password")
        let certificate = try files.write("not PEM, only readable\n", to: "cert.pem")
        #expect(
            try configurationError("mqtt:\n  password: x\n  password_file: \(secret)\n")
                == "FILE:3:18: mqtt.password_file: set together with mqtt.password; use one of them")
        #expect(
            try configurationError("mqtt:\n  url: mqtt://u:p@h\n")
                == "FILE:2:8: mqtt.url: must not hold a user name or password; use mqtt.username and mqtt.password_file"
        )
        #expect(
            try configurationError("mqtt:\n  ca_file: \(certificate)\n")
                == "FILE:2:12: mqtt.ca_file: is set but mqtt.url uses mqtt://; use mqtts:// for TLS")
        #expect(
            try configurationError("mqtt:\n  url: mqtts://h\n  cert_file: \(certificate)\n")
                == "FILE:3:14: mqtt.cert_file: needs mqtt.key_file too")
        #expect(
            try configurationError("homeassistant:\n  birth_delay_min: 9\n  birth_delay_max: 2\n")
                == "FILE:3:20: homeassistant.birth_delay_max: homeassistant.birth_delay_min (9 seconds) is more than homeassistant.birth_delay_max (2 seconds)"
        )
        #expect(
            try configurationError("mqtt:\n  base_topic: home\nhomeassistant:\n  prefix: home/ha\n")
                == #"FILE:4:11: homeassistant.prefix: conflicts with mqtt.base_topic ("home"): neither may be the other or lie under it; change one of them"#
        )
        #expect(
            try configurationError("mqtt:\n  base_topic: homeassistant/gw\n")
                == #"FILE: homeassistant.prefix (default "homeassistant") conflicts with mqtt.base_topic ("homeassistant/gw"): neither may be the other or lie under it; change one of them"#
        )
        #expect(
            try configurationError("homeassistant:\n  status_topic: hap2mqtt/bridge/state\n")
                == #"FILE:2:17: homeassistant.status_topic: conflicts with mqtt.base_topic ("hap2mqtt"): it must not lie under the gateway's own topics; change one of them"#
        )
        #expect(
            try configurationError("mqtt:\n  base_topic: hap2mqtt2\nhomeassistant:\n  status_topic: hap2mqtt/x\n")
                == nil)
    }

    @Test("a base topic, prefix or status topic longer than 256 bytes is refused")
    func topicLength() throws {
        let long = String(repeating: "t", count: 257)
        #expect(
            try configurationError("mqtt:\n  base_topic: \(long)\n")
                == "FILE:2:15: mqtt.base_topic: is 257 bytes long; at most 256 are allowed")
        #expect(
            try configurationError("homeassistant:\n  prefix: \(long)\n")
                == "FILE:2:11: homeassistant.prefix: is 257 bytes long; at most 256 are allowed")
        #expect(try configurationError("mqtt:\n  base_topic: \(long.dropLast())\n") == nil)
    }

    @Test("the binary exits 2 with the line that names both keys, never the password")
    func binary() async throws {
        let files = try TemporaryFiles()
        defer { files.remove() }
        let secret = try files.write("s3cret\n", to: "password")
        let path = try files.write("mqtt:\n  password: hunter2\n  password_file: \(secret)\n", to: "c.yaml")
        let result = try await ExecutableTests.run(["run", "--config", path])
        #expect(result.status == 2)
        #expect(
            result.error
                == "hap2mqtt: \(path):3:18: mqtt.password_file: set together with mqtt.password; use one of them\n")
        let fromEnvironment = try await ExecutableTests.run(
            ["run", "--config", try files.write("mqtt:\n  password_file: \(secret)\n", to: "d.yaml")],
            environment: ["HAP2MQTT_MQTT_PASSWORD": "hunter2"])
        #expect(fromEnvironment.status == 2)
        #expect(
            fromEnvironment.error.contains("mqtt.password_file: set together with mqtt.password; use one of them"),
            "\(fromEnvironment.error)")
        for text in [result.error, fromEnvironment.error] {
            #expect(!text.contains("hunter2") && !text.contains("s3cret"))
        }
    }
}
