import Foundation
import Testing

@testable import hap2mqtt

/// The `frontend` section: its defaults, the token from a file, and the one line that refuses a page
/// other machines could reach without a token.
@Suite("frontend settings")
struct FrontendSettingsTests {
    @Test("on by default, on 127.0.0.1:8780 without a token; enabled: false turns it off")
    func defaults() throws {
        let c = Configuration()
        #expect(c.frontend.enabled)
        let page = try #require(c.frontendConfiguration)
        #expect(page.host == "127.0.0.1" && page.port == 8780 && page.authToken == nil)
        let files = try TemporaryFiles()
        defer { files.remove() }
        let path = try files.write("frontend:\n  enabled: false\n", to: "hap2mqtt.yaml")
        let loaded = try Configuration.load(path: path, environment: [:]).configuration
        #expect(loaded.frontendConfiguration == nil)
        let off = try Configuration.load(
            path: nil, environment: ["HAP2MQTT_FRONTEND_ENABLED": "false"], defaultPath: files.path + "/none.yaml")
        #expect(off.configuration.frontendConfiguration == nil)
    }

    @Test("an address other machines can reach without a token is refused with one line")
    func tokenRequired() throws {
        #expect(
            try configurationError("frontend:\n  enabled: true\n  host: 0.0.0.0\n")
                == "FILE:3:9: frontend.host: is not a loopback address, so other machines can reach the web page: set frontend.auth_token_file (or frontend.auth_token), or use 127.0.0.1"
        )
        let fromEnvironment = try configurationError(
            "frontend:\n  enabled: true\n", environment: ["HAP2MQTT_FRONTEND_HOST": "::"])
        #expect(
            fromEnvironment
                == "environment variable HAP2MQTT_FRONTEND_HOST: frontend.host: is not a loopback address, so other machines can reach the web page: set frontend.auth_token_file (or frontend.auth_token), or use 127.0.0.1"
        )
        #expect(
            try configurationError("frontend:\n  enabled: true\n  host: 0.0.0.0\n  auth_token: s3cret-s3cret-s3cret\n")
                == nil)
        #expect(try configurationError("frontend:\n  enabled: false\n  host: 0.0.0.0\n") == nil)
        #expect(
            try configurationError("frontend:\n  port: 70000\n")
                == "FILE:2:9: frontend.port: expected a TCP port from 0 (any free one) to 65535, got 70000")
    }

    @Test("the token comes from its file and never shows in the summary bridge/info and the log carry")
    func tokenFile() throws {
        let files = try TemporaryFiles()
        defer { files.remove() }
        let token = try files.write("page-token-0815-4711\n", to: "token")
        chmod(token, 0o600)
        let path = try files.write(
            "frontend:\n  enabled: true\n  host: 0.0.0.0\n  auth_token_file: \(token)\n", to: "hap2mqtt.yaml")
        let loaded = try Configuration.load(path: path, environment: [:]).configuration
        #expect(loaded.frontendConfiguration?.authToken == "page-token-0815-4711")
        #expect(!loaded.redactedSummary.description.contains("page-token-0815-4711"))
        #expect(loaded.redactedSummary.description.contains(#""auth_token":"***""#))
        let both = try files.write("frontend:\n  auth_token: a\n  auth_token_file: \(token)\n", to: "both.yaml")
        #expect(throws: ConfigurationError.self) { try Configuration.load(path: both, environment: [:]) }
        let empty = try files.write("", to: "empty")
        let emptyFile = try files.write("frontend:\n  auth_token_file: \(empty)\n", to: "empty.yaml")
        #expect(throws: ConfigurationError.self) { try Configuration.load(path: emptyFile, environment: [:]) }
    }

    @Test("a token shorter than 16 characters, or a token file every user may read, is refused with one line")
    func weakToken() throws {
        #expect(
            try configurationError("frontend:\n  auth_token: short\n")
                == "FILE: frontend.auth_token: the token has 5 characters; use at least 16 (for example the output of `openssl rand -hex 16`)"
        )
        let files = try TemporaryFiles()
        defer { files.remove() }
        let token = try files.write("fifteen-chars-x\n", to: "token")
        chmod(token, 0o600)
        let shortFile = try files.write("frontend:\n  auth_token_file: \(token)\n", to: "short.yaml")
        #expect(throws: ConfigurationError.self) { try Configuration.load(path: shortFile, environment: [:]) }
        let long = try files.write("a-token-of-enough-length\n", to: "long")
        chmod(long, 0o644)
        let config = try files.write("frontend:\n  auth_token_file: \(long)\n", to: "open.yaml")
        do {
            _ = try Configuration.load(path: config, environment: [:])
            Issue.record("a token file every user may read was accepted")
        } catch {
            #expect(
                error.description.hasSuffix(
                    "frontend.auth_token_file: \(long) can be read by every user of this machine (mode 644); chmod o-r \(long) (600, or 640 with the service's group)"
                ))
            #expect(!error.description.contains("a-token-of-enough-length"))
        }
        chmod(long, 0o640)
        #expect(try Configuration.load(path: config, environment: [:]).configuration.frontend.authToken != nil)
    }
}
