import Foundation
import Testing

@testable import hap2mqtt

/// Loads `yaml` from a temporary file and returns the one-line error a user would see, with the
/// temporary file's path replaced by `FILE`; nil when it loads.
func configurationError(_ yaml: String, environment: [String: String] = [:]) throws -> String? {
    let files = try TemporaryFiles()
    defer { files.remove() }
    let path = try files.write(yaml, to: "hap2mqtt.yaml")
    do {
        _ = try Configuration.load(path: path, environment: environment)
        return nil
    } catch {
        return error.description.replacingOccurrences(of: path, with: "FILE")
    }
}

@Suite("Configuration errors are one line naming the file, the position and the key")
struct ConfigurationErrorTests {
    @Test("an unknown key suggests the nearest known one")
    func unknownKey() throws {
        #expect(
            try configurationError("mqtt:\n  protcol: 5\n")
                == "FILE:2:3: mqtt.protcol: unknown key; did you mean protocol?")
        #expect(try configurationError("mqt:\n  url: mqtt://a\n") == "FILE:1:1: mqt: unknown key; did you mean mqtt?")
        #expect(try configurationError("homekit:\n  colour: red\n") == "FILE:2:3: homekit.colour: unknown key")
        #expect(
            try configurationError(
                """
                homekit:
                  accessories:
                    "AA:BB:CC:DD:EE:FF/2": { rooom: Hall }
                """) == #"FILE:3:30: homekit.accessories["AA:BB:CC:DD:EE:FF/2"].rooom: unknown key; did you mean room?"#
        )
    }

    @Test("a value of the wrong kind says what was expected and what was found")
    func wrongType() throws {
        #expect(
            try configurationError("homekit:\n  poll_interval: soon\n")
                == #"FILE:2:18: homekit.poll_interval: expected a number of seconds, got "soon""#)
        #expect(
            try configurationError("homekit:\n  write_timeout: .inf\n")
                == #"FILE:2:18: homekit.write_timeout: expected a number of seconds, got ".inf""#)
        #expect(try configurationError("mqtt:\n  url: [a, b]\n") == "FILE:2:8: mqtt.url: expected text, got a list")
        #expect(try configurationError("mqtt: 5\n") == #"FILE:1:7: mqtt: expected a mapping of settings, got "5""#)
        #expect(
            try configurationError("- mqtt\n")
                == "FILE:1:1: expected a mapping of sections (mqtt, homekit, home, homeassistant, frontend, log_level, mqtt_log_level, standby), got a list"
        )
        #expect(
            try configurationError("homeassistant:\n  discovery: maybe\n")
                == #"FILE:2:14: homeassistant.discovery: expected true or false, got "maybe""#)
        #expect(try configurationError("mqtt:\n  qos: 3\n") == #"FILE:2:8: mqtt.qos: expected 0, 1 or 2, got "3""#)
        #expect(
            try configurationError("mqtt:\n  protocol: 3.1\n")
                == #"FILE:2:13: mqtt.protocol: expected 5 or 3.1.1, got "3.1""#)
        #expect(
            try configurationError("home:\n  rooms: Kitchen\n")
                == #"FILE:2:10: home.rooms: expected a list, got "Kitchen""#)
        #expect(
            try configurationError("log_level: loud\n")
                == #"FILE:1:12: log_level: expected one of trace, debug, info, notice, warning, error, got "loud""#)
    }

    @Test("a value that is not allowed says why")
    func invalidValue() throws {
        #expect(
            try configurationError("homekit:\n  write_timeout: -1\n")
                == "FILE:2:18: homekit.write_timeout: must be more than 0 seconds, got -1")
        #expect(
            try configurationError("homekit:\n  poll_interval: 90000\n")
                == "FILE:2:18: homekit.poll_interval: must be at most 86400 seconds, got 90000")
        #expect(
            try configurationError("mqtt:\n  url: http://broker\n")
                == #"FILE:2:8: mqtt.url: expected mqtt://HOST[:PORT] or mqtts://HOST[:PORT], got "http://broker""#)
        #expect(
            try configurationError("mqtt:\n  url: mqtt://broker:70000\n")
                == #"FILE:2:8: mqtt.url: port must be a number from 1 to 65535, got "70000""#)
        #expect(
            try configurationError("mqtt:\n  keepalive: 2\n")
                == "FILE:2:14: mqtt.keepalive: expected 0 (off) or a whole number of seconds from 5 to 65535, got 2")
        #expect(
            try configurationError("mqtt:\n  base_topic: home/#\n")
                == #"FILE:2:15: mqtt.base_topic: must not contain the wildcards + and # or NUL, got "home/#""#)
        #expect(try configurationError("mqtt:\n  client_id: ''\n") == "FILE:2:14: mqtt.client_id: must not be empty")
        #expect(
            try configurationError("homeassistant:\n  birth_delay_min: 7\n  birth_delay_max: 5\n")
                == "FILE:3:20: homeassistant.birth_delay_max: homeassistant.birth_delay_min (7 seconds) is more than "
                + "homeassistant.birth_delay_max (5 seconds)")
        #expect(
            try configurationError("homekit:\n  accessories:\n    lamp: { room: Hall }\n")
                == #"FILE:3:5: homekit.accessories["lamp"]: expected an accessory id "<pairing id>/<aid>" such as "AA:BB:CC:DD:EE:FF/2", got "lamp""#
        )
        #expect(
            try configurationError(
                """
                homekit:
                  accessories:
                    "aa:bb:cc:dd:ee:ff/2": { room: Hall }
                    "AA:BB:CC:DD:EE:FF/2": { room: Kitchen }
                """)
                == #"FILE:4:5: homekit.accessories["AA:BB:CC:DD:EE:FF/2"]: the accessory AA:BB:CC:DD:EE:FF/2 is listed twice"#
        )
        #expect(
            try configurationError("homeassistant:\n  exclude_accessories: [lamp, '']\n")
                == "FILE:2:31: homeassistant.exclude_accessories[1]: must not be empty")
        // What Home Assistant refuses in a discovery prefix, and a format it does not have.
        let control = try configurationError("homeassistant:\n  prefix: \"home\\tassistant\"\n")
        #expect(
            control?.contains("homeassistant.prefix: must not contain control characters (U+9)") == true,
            "\(control ?? "")")
        let nonCharacter = try configurationError("homeassistant:\n  prefix: \"ha\\uFFFE\"\n")
        #expect(nonCharacter?.contains("the Unicode noncharacter U+FFFE") == true, "\(nonCharacter ?? "")")
        #expect(
            try configurationError("homeassistant:\n  discovery_format: both\n")
                == #"FILE:2:21: homeassistant.discovery_format: must be device (one config per accessory, Home Assistant 2024.11 and later) or entity (one per entity, every release), got "both""#
        )
        #expect(
            try configurationError("home:\n  rooms: [Hall, Hall]\n")
                == #"FILE:2:17: home.rooms[1]: the room "Hall" is listed twice"#)
        #expect(
            try configurationError("mqtt:\n  response_topics: [replies/#, 'a/#/b']\n")
                == #"FILE:2:32: mqtt.response_topics[1]: is no MQTT topic filter: "a/#/b": # must be a whole level and the last one"#
        )
        #expect(
            try configurationError("mqtt:\n  response_topics: replies/#\n")
                == #"FILE:2:20: mqtt.response_topics: expected a list, got "replies/#""#)
    }

    @Test("a key written twice names both lines")
    func duplicateKey() throws {
        #expect(
            try configurationError("mqtt:\n  qos: 0\n  qos: 2\n") == "FILE:3:3: mqtt.qos: set twice (first on line 2)")
        #expect(
            try configurationError("homekit:\n  accessories:\n    a/1: {}\n    a/1: {}\n")
                == #"FILE:4:5: homekit.accessories["a/1"]: set twice (first on line 3)"#)
    }

    @Test("YAML syntax errors name the file, line and column")
    func syntax() throws {
        #expect(
            try configurationError("mqtt:\n  url: mqtt://a\n   qos: 1\n")
                == "FILE:3:7: YAML syntax error: mapping values are not allowed in this context")
    }

    @Test("a file named with --config must exist and be readable")
    func files() throws {
        let files = try TemporaryFiles()
        defer { files.remove() }
        let missing = files.path + "/missing.yaml"
        #expect(throws: ConfigurationError.fileNotFound(path: missing)) {
            try Configuration.load(path: missing, environment: [:])
        }
        #expect((try? Configuration.load(path: missing, environment: [:])) == nil)
        do {
            _ = try Configuration.load(path: files.path, environment: [:])
            Issue.record("a directory loaded as a configuration file")
        } catch {
            #expect(error.description == "\(files.path): cannot read configuration file: Is a directory")
        }
    }

    @Test("the default file may be missing: then the defaults apply")
    func missingDefault() throws {
        let files = try TemporaryFiles()
        defer { files.remove() }
        let loaded = try Configuration.load(path: nil, environment: [:], defaultPath: files.path + "/none.yaml")
        #expect(loaded.configuration == Configuration())
        #expect(loaded.file == nil)
        #expect(loaded.warnings.isEmpty)
    }

    @Test("an empty file, or one with only comments, is all defaults")
    func emptyFile() throws {
        #expect(try configurationError("") == nil)
        #expect(try configurationError("# nothing\n") == nil)
        #expect(try configurationError("mqtt:\nhomekit: ~\n") == nil)
    }
}
