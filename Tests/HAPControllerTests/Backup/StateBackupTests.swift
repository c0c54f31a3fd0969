import Foundation
import JSON
import SystemSupport
import Testing

@testable import HAPController

@Suite("State backup: what a backup holds, and restores that change nothing when refused")
struct StateBackupTests {
    /// A state directory with an identity, two pairings, the gateway's files, a cache and files a backup
    /// leaves out.
    static func populated() throws -> (TemporaryDirectory, [Pairing]) {
        let directory = try TemporaryDirectory()
        let store = PairingStore(directory: directory.stateDirectory)
        let identity = try store.identity()
        let pairings = try ["AA:BB:CC:DD:EE:01", "AA:BB:CC:DD:EE:02"].enumerated().map { index, id in
            Pairing(
                accessoryPairingID: id, accessoryLTPK: try Ed25519PrivateKey().publicKey,
                controllerPairingID: identity.pairingID, host: "192.168.1.\(20 + index)", port: 51826,
                name: "Lamp \(index)")
        }
        for pairing in pairings { try store.save(pairing) }
        let state = directory.stateDirectory
        try state.write(Data(#"{"AA:BB:CC:DD:EE:01/1":"lamp"}"#.utf8), to: "slugs.json")
        try state.write(Data(#"{"AA:BB:CC:DD:EE:01/1":{"room":"Hall"}}"#.utf8), to: "options.json")
        try state.write(Data(#"{"accessories":[]}"#.utf8), to: "accessories-AA-BB-CC-DD-EE-01.json")
        try state.write(Data(#"{"read_batch_limit":4}"#.utf8), to: "profile-AA-BB-CC-DD-EE-02.json")
        try state.write(Data("{}".utf8), to: "profile-of-something-else.json")
        try state.write(Data("{}".utf8), to: "health.json")
        try state.write(Data("{}".utf8), to: "slugs.json.corrupt")
        try state.write(Data("1".utf8), to: ".lock")
        return (directory, pairings)
    }

    static let backedUp = [
        "accessories-AA-BB-CC-DD-EE-01.json", "controller.json", "options.json", "pairing-AA-BB-CC-DD-EE-01.json",
        "pairing-AA-BB-CC-DD-EE-02.json", "profile-AA-BB-CC-DD-EE-02.json", "slugs.json",
    ]

    @Test(
        "a backup holds the identity, the pairings, slugs, options, caches and learned profiles; never health, lock or damaged copies"
    )
    func collect() throws {
        let (directory, pairings) = try Self.populated()
        defer { directory.remove() }
        let backup = try StateBackup.collect(from: directory.stateDirectory, createdBy: "hap2mqtt test")
        #expect(backup.files.keys.sorted() == Self.backedUp)
        #expect(backup.pairings == pairings)
        let again = try StateBackup(payload: backup.payload)
        #expect(again == backup)
        #expect(again.createdBy == "hap2mqtt test")
    }

    @Test("restored into an empty directory: every file byte for byte, mode 0600; then again over itself")
    func restoreIntoEmpty() throws {
        let (directory, _) = try Self.populated()
        defer { directory.remove() }
        let backup = try StateBackup.collect(from: directory.stateDirectory, createdBy: "hap2mqtt test")
        let target = try TemporaryDirectory()
        defer { target.remove() }
        try FileManager.default.removeItem(atPath: target.path)
        try backup.restore(into: target.stateDirectory)
        #expect(target.files() == Self.backedUp)
        for name in Self.backedUp {
            #expect(try target.mode(of: name) == 0o600)
            #expect(try target.stateDirectory.read(name) == directory.stateDirectory.read(name))
        }
        try backup.restore(into: target.stateDirectory)
        #expect(target.files() == Self.backedUp)
    }

    @Test("over a directory with another pairing or another identity: refused, one line, nothing changed")
    func restoreRefused() throws {
        let (directory, _) = try Self.populated()
        defer { directory.remove() }
        let backup = try StateBackup.collect(from: directory.stateDirectory, createdBy: "hap2mqtt test")

        let other = try TemporaryDirectory()
        defer { other.remove() }
        let store = PairingStore(directory: other.stateDirectory)
        let identity = try store.identity()
        try store.save(
            Pairing(
                accessoryPairingID: "11:22:33:44:55:66", accessoryLTPK: try Ed25519PrivateKey().publicKey,
                controllerPairingID: identity.pairingID, host: "10.0.0.1", port: 1, name: "Fan"))
        let before = try snapshot(other)
        #expect(throws: BackupError.self) { try backup.restore(into: other.stateDirectory) }
        #expect(try snapshot(other) == before)

        // The same identity, but a pairing the backup does not hold.
        let mixed = try TemporaryDirectory()
        defer { mixed.remove() }
        try mixed.stateDirectory.write(Data(backup.files["controller.json"]!), to: "controller.json")
        try PairingStore(directory: mixed.stateDirectory).save(
            Pairing(
                accessoryPairingID: "11:22:33:44:55:66", accessoryLTPK: try Ed25519PrivateKey().publicKey,
                controllerPairingID: backup.identity.pairingID, host: "10.0.0.1", port: 1, name: "Fan"))
        let mixedBefore = try snapshot(mixed)
        do {
            try backup.restore(into: mixed.stateDirectory)
            Issue.record("restored over another pairing")
        } catch {
            #expect(
                error.description
                    == "\(mixed.path) holds a pairing (Fan), which the archive does not: restoring over it would orphan them; restore into an empty state directory"
            )
        }
        #expect(try snapshot(mixed) == mixedBefore)

        // Only another identity.
        let bare = try TemporaryDirectory()
        defer { bare.remove() }
        _ = try PairingStore(directory: bare.stateDirectory).identity()
        let bareBefore = try snapshot(bare)
        #expect(
            throws: BackupError.stateDirectoryInUse(
                directory: bare.path, reason: "holds another controller identity (controller.json)")
        ) { try backup.restore(into: bare.stateDirectory) }
        #expect(try snapshot(bare) == bareBefore)
    }

    @Test("a payload naming a file outside the backup's set, or of a newer format, or without identity: refused")
    func badPayloads() throws {
        let (directory, _) = try Self.populated()
        defer { directory.remove() }
        let backup = try StateBackup.collect(from: directory.stateDirectory, createdBy: "hap2mqtt test")
        var escaping = backup
        escaping.files["../../etc/passwd"] = Array("x".utf8)
        #expect(
            throws: BackupError.damaged(
                reason: #"it holds a file named "../../etc/passwd", which no backup holds"#)
        ) { try StateBackup(payload: escaping.payload) }
        let newer = String(decoding: backup.payload, as: UTF8.self).replacingOccurrences(
            of: #""format":1"#, with: #""format":7"#)
        #expect(throws: BackupError.newerFormat(version: 7, supported: 1)) {
            try StateBackup(payload: Array(newer.utf8))
        }
        var headless = backup
        headless.files["controller.json"] = nil
        #expect(throws: BackupError.damaged(reason: "it holds no controller identity")) {
            try StateBackup(payload: headless.payload)
        }
        #expect(throws: BackupError.damaged(reason: "its content is not a backup's")) {
            try StateBackup(payload: Array("[]".utf8))
        }
    }

    @Test("nothing to back up without an identity; a damaged pairing file stops the backup with its name")
    func collectRefused() throws {
        let empty = try TemporaryDirectory()
        defer { empty.remove() }
        #expect(throws: BackupError.nothingToBackUp(directory: empty.path)) {
            try StateBackup.collect(from: empty.stateDirectory, createdBy: "hap2mqtt test")
        }
        let (directory, _) = try Self.populated()
        defer { directory.remove() }
        try directory.stateDirectory.write(Data("{".utf8), to: "pairing-AA-BB-CC-DD-EE-02.json")
        do {
            _ = try StateBackup.collect(from: directory.stateDirectory, createdBy: "hap2mqtt test")
            Issue.record("backed up a damaged pairing")
        } catch {
            #expect(error.description.contains("pairing-AA-BB-CC-DD-EE-02.json is not JSON"), "\(error)")
        }
    }

    /// Every file's name and bytes.
    private func snapshot(_ directory: TemporaryDirectory) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in directory.files() { files[name] = try directory.stateDirectory.read(name) }
        return files
    }
}
