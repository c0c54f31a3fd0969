import Foundation
import HAP2MQTTTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `scripts/install` into a throwaway root (`--root`), so that the machine's /usr/local and /etc stay
/// untouched: it creates users with `useradd --root`, which needs root.
@Suite("scripts/install", .enabled(if: getuid() == 0, "useradd --root needs root"))
struct InstallScriptTests {

    /// A root with the machine's user database, and the shell useradd gives the service user.
    static func makeRoot() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("install-root-\(UUID().uuidString)")
        let manager = FileManager.default
        try manager.createDirectory(at: root.appendingPathComponent("etc"), withIntermediateDirectories: true)
        for name in ["passwd", "group", "shadow", "gshadow"] {
            try manager.copyItem(atPath: "/etc/\(name)", toPath: root.appendingPathComponent("etc/\(name)").path)
        }
        try manager.createDirectory(at: root.appendingPathComponent("usr/sbin"), withIntermediateDirectories: true)
        try manager.copyItem(atPath: "/usr/sbin/nologin", toPath: root.appendingPathComponent("usr/sbin/nologin").path)
        return root
    }

    static func install(_ arguments: [String]) async throws -> String {
        try await ExternalTool.run(Repository.file("scripts/install").path, arguments, in: Repository.root)
    }

    static func text(_ root: URL, _ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    static func attributes(_ root: URL, _ path: String) throws -> (mode: Int, owner: Int, group: Int) {
        let values = try FileManager.default.attributesOfItem(atPath: root.appendingPathComponent(path).path)
        return (
            (values[.posixPermissions] as? Int) ?? -1, (values[.ownerAccountID] as? Int) ?? -1,
            (values[.groupOwnerAccountID] as? Int) ?? -1
        )
    }

    /// The service user's passwd line in the root.
    static func user(_ root: URL) throws -> [Substring]? {
        try text(root, "etc/passwd").split(separator: "\n").map {
            $0.split(separator: ":", omittingEmptySubsequences: false)
        }
        .first { $0.first == "hap2mqtt" }
    }

    @Test(
        "installs the binary, a configuration it never overwrites, the unit and the user; --uninstall keeps the state directory"
    )
    func installAndUninstall() async throws {
        let root = try Self.makeRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let binary = try GatewayProcess.binary().path
        _ = try await Self.install(["--root", root.path, "--binary", binary])

        #expect(try Self.attributes(root, "usr/local/bin/hap2mqtt").mode == 0o755)
        let user = try #require(try Self.user(root))
        #expect(user[5] == "/var/lib/hap2mqtt" && user[6] == "/usr/sbin/nologin", "\(user)")
        let uid = try #require(Int(user[2]))
        #expect(uid < 1000, "a system user")
        #expect(
            !(try String(contentsOfFile: "/etc/passwd", encoding: .utf8)).contains("hap2mqtt gateway"),
            "the machine's users are untouched")

        let config = try Self.text(root, "etc/hap2mqtt/hap2mqtt.yaml")
        #expect(config.contains("\n  state_dir: /var/lib/hap2mqtt\n"))
        let configAttributes = try Self.attributes(root, "etc/hap2mqtt/hap2mqtt.yaml")
        #expect(configAttributes.mode == 0o640 && configAttributes.owner == 0)
        let unit = try Self.text(root, "etc/systemd/system/hap2mqtt.service")
        #expect(unit == (try String(contentsOf: SystemdUnitTests.unit, encoding: .utf8)))
        let state = try Self.attributes(root, "var/lib/hap2mqtt")
        #expect(state.mode == 0o700 && state.owner == uid)

        // Run again over an edited configuration and a pairing in the state directory (an upgrade).
        let edited = config + "# mine\n"
        try edited.write(
            to: root.appendingPathComponent("etc/hap2mqtt/hap2mqtt.yaml"), atomically: true, encoding: .utf8)
        try "{}".write(
            to: root.appendingPathComponent("var/lib/hap2mqtt/pairing-AA.json"), atomically: true, encoding: .utf8)
        let again = try await Self.install(["--root", root.path, "--binary", binary])
        #expect(again.contains("kept /etc/hap2mqtt/hap2mqtt.yaml (it exists)"), "\(again)")
        #expect(try Self.text(root, "etc/hap2mqtt/hap2mqtt.yaml") == edited)
        #expect(
            try Self.attributes(root, "var/lib/hap2mqtt/pairing-AA.json").owner == uid, "state files become the user's")

        let removed = try await Self.install(["--uninstall", "--root", root.path])
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("usr/local/bin/hap2mqtt").path))
        #expect(
            !FileManager.default.fileExists(
                atPath: root.appendingPathComponent("etc/systemd/system/hap2mqtt.service").path))
        #expect(try Self.user(root) == nil)
        #expect(!(try Self.text(root, "etc/group")).contains("\nhap2mqtt:"))
        #expect(removed.contains("kept /etc/hap2mqtt/hap2mqtt.yaml: you changed it"), "\(removed)")
        #expect(
            FileManager.default.fileExists(atPath: root.appendingPathComponent("var/lib/hap2mqtt/pairing-AA.json").path)
        )
    }

    @Test("an unchanged configuration goes with --uninstall; --prefix moves the binary and the unit's ExecStart")
    func prefix() async throws {
        let root = try Self.makeRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        _ = try await Self.install([
            "--root", root.path, "--prefix", "/opt/hap2mqtt", "--binary", try GatewayProcess.binary().path,
        ])
        #expect(
            FileManager.default.isExecutableFile(atPath: root.appendingPathComponent("opt/hap2mqtt/bin/hap2mqtt").path))
        let unit = try Self.text(root, "etc/systemd/system/hap2mqtt.service")
        #expect(unit.contains("\nExecStart=/opt/hap2mqtt/bin/hap2mqtt run --config /etc/hap2mqtt/hap2mqtt.yaml\n"))
        let removed = try await Self.install(["--uninstall", "--root", root.path, "--prefix", "/opt/hap2mqtt"])
        #expect(removed.contains("removed /etc/hap2mqtt/hap2mqtt.yaml (unchanged since the install)"), "\(removed)")
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("etc/hap2mqtt").path))
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("opt/hap2mqtt/bin/hap2mqtt").path))
    }
}
