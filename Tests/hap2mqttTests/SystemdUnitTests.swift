import Foundation
import HAP2MQTTTesting
import Testing

/// `packaging/systemd/hap2mqtt.service`, as systemd itself reads it (`systemd-analyze`, which works
/// without a running systemd; `scripts/test` installs the `systemd` package for it).
@Suite("The systemd unit")
struct SystemdUnitTests {
    static let unit = Repository.file("packaging/systemd/hap2mqtt.service")

    /// The unit with `ExecStart=` pointing at the built binary, in a folder of its own: `verify` checks
    /// that the program exists.
    static func unitForBuiltBinary() throws -> (file: URL, directory: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("unit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let text = try String(contentsOf: unit, encoding: .utf8)
            .replacingOccurrences(
                of: "ExecStart=/usr/local/bin/hap2mqtt ", with: "ExecStart=\(try GatewayProcess.binary().path) ")
        let file = directory.appendingPathComponent("hap2mqtt.service")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return (file, directory)
    }

    @Test("systemd-analyze verify finds nothing to say about it")
    func verify() async throws {
        let (file, directory) = try Self.unitForBuiltBinary()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = try await ExternalTool.run("systemd-analyze", ["verify", file.path])
        #expect(output == "", "unknown keys and bad values are warnings with exit status 0")
    }

    @Test("it is a notify service with a watchdog, its own user and directories, restarted on failure")
    func settings() throws {
        let lines = Set(try String(contentsOf: Self.unit, encoding: .utf8).split(separator: "\n").map(String.init))
        for line in [
            "Type=notify", "WatchdogSec=60s", "Restart=on-failure", "User=hap2mqtt", "StateDirectory=hap2mqtt",
            "ConfigurationDirectory=hap2mqtt",
            "ExecStart=/usr/local/bin/hap2mqtt run --config /etc/hap2mqtt/hap2mqtt.yaml",
            "NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes",
            "CapabilityBoundingSet=",
            "SystemCallFilter=@system-service", "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK",
        ] {
            #expect(lines.contains(line), "\(line)")
        }
    }

    @Test("systemd-analyze security rates its exposure OK (2.0 or less of 10)")
    func exposure() async throws {
        let (file, directory) = try Self.unitForBuiltBinary()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = try await ExternalTool.run(
            "systemd-analyze", ["security", "--offline=true", "--no-pager", file.path])
        let overall = try #require(output.split(separator: "\n").first { $0.contains("Overall exposure level") })
        // "→ Overall exposure level for hap2mqtt.service: 1.3 OK 🙂"
        let score = try #require(overall.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) })
        #expect(score <= 2.0, "\(overall)")
    }
}
