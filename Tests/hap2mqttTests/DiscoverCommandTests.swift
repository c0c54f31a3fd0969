import Foundation
import HAP2MQTTTesting
import Testing

@testable import hap2mqtt

/// `hap2mqtt discover` without a daemon to ask, and its options. Listing real announcements is in
/// `Tests/IntegrationTests/Discovery` (inside a private network namespace with Avahi).
@Suite("hap2mqtt discover")
struct DiscoverCommandTests {
    @Test(
        "without a reachable Avahi daemon: one line that says how to start it, status 1",
        .enabled(if: AvahiNamespace.canRun, Comment(rawValue: AvahiNamespace.skipReason)))
    func noDaemon() async throws {
        try #require(AvahiNamespace.problem == nil, Comment(rawValue: AvahiNamespace.skipReason))
        // In a namespace of its own without avahi-daemon (or D-Bus): never the machine's own daemon.
        // `env -i`: none of the tests' variables, which hap2mqtt would warn about.
        let binary = try GatewayProcess.binary().path
        let result = try await AvahiNamespace.run(
            "/usr/bin/env", ["-i", "PATH=/usr/bin:/bin", binary, "discover"], avahi: false,
            directory: FileManager.default.temporaryDirectory)
        #expect(result.status == 1)
        #expect(
            result.output
                == "hap2mqtt: cannot reach the Avahi daemon (Daemon not running): start it with 'systemctl start avahi-daemon' "
                + "(Debian package avahi-daemon); in Docker, use the host network, mount the host's /run/dbus "
                + "(Avahi is reached over the D-Bus system bus) and give the host a user with the container's uid "
                + "(dbus-daemon does not answer unknown users; README \"Docker\")\n")
    }

    @Test("--timeout takes seconds above 0 and up to 600; --json is a flag")
    func options() throws {
        #expect(try parse("discover") == DiscoverCommand())
        #expect(try parse("discover --timeout 0.5 --json") == DiscoverCommand(timeout: .milliseconds(500), json: true))
        #expect(try parse("discover --timeout=600") == DiscoverCommand(timeout: .seconds(600)))
        for bad in ["0", "-1", "601", "soon", "nan", "1e300"] {
            #expect(throws: CommandLineError.self) { try parse("discover --timeout \(bad)") }
        }
        // A negative number is the option's value, refused for its range, not a missing value.
        let negative = #expect(throws: CommandLineError.self) { try parse("discover --timeout -1") }
        #expect(
            negative?.description
                == "--timeout: expected more than 0 and at most 600 seconds, got -1; see hap2mqtt discover --help")
    }

    private func parse(_ line: String) throws -> DiscoverCommand {
        let invocation = try CommandLineParser.parse(line.split(separator: " ").map(String.init))
        guard case .command(let parsed) = invocation.action, let command = parsed.as(DiscoverCommand.self) else {
            throw CommandLineError.unknownCommand(line)
        }
        return command
    }
}
