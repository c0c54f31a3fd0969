import Foundation
import JSON
import Testing

@testable import hap2mqtt

@Suite("Secrets come from the file, a *_file or the environment and never show")
struct ConfigurationSecretTests {
    static let secret = "s3cr3t-Pa55"

    /// Everything a user or a log could see of a configuration.
    private func visible(_ configuration: Configuration) throws -> [String] {
        var dumped = ""
        dump(configuration, to: &dumped)
        return [
            configuration.description, configuration.redactedSummary.description,
            "\(configuration.mqtt)", String(reflecting: configuration), dumped,
        ]
    }

    @Test("password_file is read with its trailing newline trimmed, and only *** is shown")
    func passwordFile() throws {
        let files = try TemporaryFiles()
        defer { files.remove() }
        let secretFile = try files.write(Self.secret + "\n", to: "password")
        let path = try files.write("mqtt:\n  username: gateway\n  password_file: \(secretFile)\n", to: "c.yaml")
        let c = try Configuration.load(path: path, environment: [:]).configuration
        #expect(c.mqtt.password?.reveal == Self.secret)
        #expect(c.mqtt.passwordFile == secretFile)
        #expect(c.redactedSummary["mqtt"]?["password"] == .string("***"))
        #expect(c.redactedSummary["mqtt"]?["password_file"] == .string(secretFile))
        for text in try visible(c) { #expect(!text.contains(Self.secret), "secret shown in \(text)") }
    }

    @Test("a password in the file or the environment is never shown")
    func password() throws {
        let fromFile = try #require(try? load("mqtt:\n  password: \(Self.secret)\n"))
        #expect(fromFile.mqtt.password?.reveal == Self.secret)
        let fromEnvironment = try #require(try? load("", environment: ["HAP2MQTT_MQTT_PASSWORD": Self.secret]))
        #expect(fromEnvironment.mqtt.password?.reveal == Self.secret)
        for c in [fromFile, fromEnvironment] {
            for text in try visible(c) { #expect(!text.contains(Self.secret), "secret shown in \(text)") }
        }
        #expect(Configuration().redactedSummary["mqtt"]?["password"] == .string(""))
    }

    @Test("errors about secrets name the key and the path, never the secret")
    func errors() throws {
        let files = try TemporaryFiles()
        defer { files.remove() }
        let secretFile = try files.write(Self.secret, to: "password")
        #expect(
            try configurationError("mqtt:\n  password: \(Self.secret)\n  password_file: \(secretFile)\n")
                == "FILE:3:18: mqtt.password_file: set together with mqtt.password; use one of them")
        #expect(
            try configurationError("mqtt:\n  password_file: \(files.path)/nothing\n")
                == "FILE:2:18: mqtt.password_file: cannot read \(files.path)/nothing: No such file or directory")
        // A path to an endless file is read no further than a bound, not until memory runs out.
        #expect(
            try configurationError("mqtt:\n  password_file: /dev/zero\n")
                == "FILE:2:18: mqtt.password_file: cannot read /dev/zero: File too large")
        #expect(
            try configurationError("mqtt:\n  url: mqtt://user:\(Self.secret)@broker\n")
                == "FILE:2:8: mqtt.url: must not hold a user name or password; use mqtt.username and mqtt.password_file"
        )
        #expect(
            try configurationError("mqtt:\n  password: [\(Self.secret)]\n")
                == "FILE:2:13: mqtt.password: expected text, got a list")
    }

    @Test("TLS files must be readable, belong to mqtts:// and come as certificate and key together")
    func tlsFiles() throws {
        let files = try TemporaryFiles()
        defer { files.remove() }
        let ca = try files.write("-----BEGIN CERTIFICATE-----\n", to: "ca.pem")
        #expect(
            try configurationError("mqtt:\n  ca_file: \(ca)\n")
                == "FILE:2:12: mqtt.ca_file: is set but mqtt.url uses mqtt://; use mqtts:// for TLS")
        #expect(
            try configurationError("mqtt:\n  url: mqtts://broker\n  cert_file: \(ca)\n")
                == "FILE:3:14: mqtt.cert_file: needs mqtt.key_file too")
        #expect(
            try configurationError("mqtt:\n  url: mqtts://broker\n  ca_file: \(files.path)/none.pem\n")
                == "FILE:3:12: mqtt.ca_file: cannot read \(files.path)/none.pem: No such file or directory")
        let c = try load("mqtt:\n  url: mqtts://broker\n  ca_file: \(ca)\n  cert_file: \(ca)\n  key_file: \(ca)\n")
        #expect(c.mqtt.caFile == ca && c.mqtt.certFile == ca && c.mqtt.keyFile == ca && c.mqtt.url.port == 8883)
    }

    private func load(_ yaml: String, environment: [String: String] = [:]) throws -> Configuration {
        let files = try TemporaryFiles()
        defer { files.remove() }
        return try Configuration.load(path: files.write(yaml, to: "c.yaml"), environment: environment).configuration
    }
}
