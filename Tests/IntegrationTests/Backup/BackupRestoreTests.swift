import Foundation
import HAP2MQTTTesting
import Testing

/// `hap2mqtt backup` and `hap2mqtt restore`, run as the user runs them, with a real accessory paired by the
/// real binary: a restore on a fresh state directory brings every accessory online without pairing again,
/// and every bad input is one line that changes nothing.
@Suite("hap2mqtt backup and restore with a real accessory")
struct BackupRestoreTests {
    static let passphrase = "a long and private passphrase"

    /// A passphrase file (mode 0600) in the gateway's folder; its path.
    static func passphraseFile(_ gateway: GatewayProcess, _ text: String = passphrase, name: String = "passphrase")
        throws -> String
    {
        let file = gateway.directory.appendingPathComponent(name)
        try TestFile.write(text + "\n", to: file)
        return file.path
    }

    @Test("backup, an empty state directory, restore: every accessory online and writable without pairing again")
    func restoreOnFreshStateDirectory() async throws {
        let live = try await LiveGateway.start(run: false)
        let archive = live.gateway.directory.appendingPathComponent("home.hap2mqtt-backup").path
        let backup = try await live.gateway.runCommand([
            "backup", "--to", archive, "--passphrase-file", try Self.passphraseFile(live.gateway),
        ])
        #expect(backup.status == 0, "\(backup.output)")
        #expect(backup.output.contains("the controller identity and 1 pairing"), "\(backup.output)")
        let mode = try FileManager.default.attributesOfItem(atPath: archive)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        let seed = try Self.seed(in: live.gateway)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
        #expect(bytes.starts(with: Data("hap2mqtt backup\n".utf8)))
        #expect(!String(decoding: bytes, as: UTF8.self).contains(seed), "the seed in clear in the archive")

        // A fresh machine: nothing of the old state directory is left.
        try FileManager.default.removeItem(at: live.gateway.stateDirectory)
        let restore = try await live.gateway.runCommand([
            "restore", "--from", archive, "--passphrase-file", try Self.passphraseFile(live.gateway),
        ])
        #expect(restore.status == 0, "\(restore.output)")
        #expect(restore.output.contains("comes online without pairing again"), "\(restore.output)")
        let controllerMode =
            try FileManager.default.attributesOfItem(
                atPath: live.gateway.stateDirectory.appendingPathComponent("controller.json").path)[.posixPermissions]
            as? NSNumber
        #expect(controllerMode?.intValue == 0o600)

        try await live.startAndExpectEveryAccessoryReachable()
        for text in [seed, Self.passphrase] {
            #expect(!live.gateway.log.contains(text), "a secret in the log")
            #expect(!backup.output.contains(text) && !restore.output.contains(text), "a secret in the output")
        }
        await live.stop()
    }

    @Test(
        "a wrong passphrase, a cut-short, damaged, newer or foreign archive, a directory in use: one line, nothing changed"
    )
    func badInputs() async throws {
        let live = try await LiveGateway.start(run: false)
        let gateway = live.gateway
        let folder = gateway.directory
        let archive = folder.appendingPathComponent("home.hap2mqtt-backup")
        let made = try await gateway.runCommand([
            "backup", "--to", archive.path, "--passphrase-file", try Self.passphraseFile(gateway),
        ])
        try #require(made.status == 0, "\(made.output)")
        let good = try Data(contentsOf: archive)

        // A short passphrase, and none at all without a terminal: refused before anything is written.
        let short = try await gateway.runCommand([
            "backup", "--to", folder.appendingPathComponent("short").path, "--passphrase-file",
            try Self.passphraseFile(gateway, "short", name: "short-passphrase"),
        ])
        #expect(short.status == 2 && short.output.contains("fewer than 8 characters"), "\(short.output)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("short").path))
        let none = try await gateway.runCommand(["backup", "--to", folder.appendingPathComponent("none").path])
        #expect(none.status == 2 && none.output.contains("no passphrase"), "\(none.output)")
        let onCommandLine = try await gateway.runCommand(["restore", "--from", archive.path, "--passphrase", "x"])
        #expect(onCommandLine.status == 2, "a passphrase option on the command line: \(onCommandLine.output)")

        var damaged = good
        damaged[damaged.count - 20] ^= 1
        var newer = good
        newer[17] = 2
        let cases: [(name: String, bytes: Data, passphrase: String, expected: String)] = [
            ("wrong", good, "another long passphrase", "wrong passphrase"),
            ("truncated", good.prefix(good.count - 100), Self.passphrase, "the archive is cut short"),
            ("damaged", damaged, Self.passphrase, "the archive is damaged"),
            ("newer", newer, Self.passphrase, "written by a newer hap2mqtt"),
            ("foreign", Data(#"{"AccessoryPairingID":"AA"}"#.utf8), Self.passphrase, "not a backup of hap2mqtt"),
        ]
        let before = try Self.snapshot(gateway.stateDirectory)
        for bad in cases {
            let file = folder.appendingPathComponent(bad.name)
            try bad.bytes.write(to: file)
            let restore = try await gateway.runCommand([
                "restore", "--from", file.path, "--passphrase-file",
                try Self.passphraseFile(gateway, bad.passphrase, name: "\(bad.name)-passphrase"),
            ])
            #expect(restore.status == 1, "\(bad.name): \(restore.output)")
            #expect(restore.output.contains(bad.expected), "\(bad.name): \(restore.output)")
            #expect(restore.output.split(separator: "\n").count == 1, "\(bad.name): \(restore.output)")
            #expect(!restore.output.contains(bad.passphrase), "\(bad.name): the passphrase in the output")
            #expect(try Self.snapshot(gateway.stateDirectory) == before, "\(bad.name) changed the state directory")
        }

        // Another pairing beside the backed-up one: the restore would orphan it.
        let pairingFile = try #require(
            try FileManager.default.contentsOfDirectory(atPath: gateway.stateDirectory.path).first {
                $0.hasPrefix("pairing-")
            })
        var pairing = try #require(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: gateway.stateDirectory.appendingPathComponent(pairingFile))) as? [String: Any])
        pairing["accessoryPairingID"] = "11:22:33:44:55:66"
        pairing["name"] = "Other"
        try JSONSerialization.data(withJSONObject: pairing).write(
            to: gateway.stateDirectory.appendingPathComponent("pairing-11-22-33-44-55-66.json"))
        let crowded = try Self.snapshot(gateway.stateDirectory)
        let over = try await gateway.runCommand([
            "restore", "--from", archive.path, "--passphrase-file", try Self.passphraseFile(gateway),
        ])
        #expect(over.status == 1 && over.output.contains("restoring over it would orphan them"), "\(over.output)")
        #expect(try Self.snapshot(gateway.stateDirectory) == crowded)
        try FileManager.default.removeItem(
            at: gateway.stateDirectory.appendingPathComponent("pairing-11-22-33-44-55-66.json"))

        // While hap2mqtt run uses the directory.
        try gateway.start()
        try await live.waitUntilOnline()
        let busy = try await gateway.runCommand([
            "restore", "--from", archive.path, "--passphrase-file", try Self.passphraseFile(gateway),
        ])
        #expect(busy.status == 1 && busy.output.contains("is in use by another hap2mqtt run"), "\(busy.output)")
        await live.stop()
    }

    /// The base64 seed of the gateway's controller identity.
    static func seed(in gateway: GatewayProcess) throws -> String {
        let data = try Data(contentsOf: gateway.stateDirectory.appendingPathComponent("controller.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(object["seed"] as? String)
    }

    /// Every file of `directory` but the lock, with its bytes.
    static func snapshot(_ directory: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name != ".lock" {
            files[name] = try Data(contentsOf: directory.appendingPathComponent(name))
        }
        return files
    }
}
