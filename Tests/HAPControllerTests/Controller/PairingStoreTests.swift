import Foundation
import HomeStore
import Testing

@testable import HAPController

@Suite("Pairing store")
struct PairingStoreTests {
    func pairing(_ id: String, name: String? = nil) throws -> Pairing {
        Pairing(
            accessoryPairingID: id, accessoryLTPK: try Ed25519PrivateKey().publicKey, controllerPairingID: "C0",
            host: "192.168.1.20", port: 51826, name: name)
    }

    @Test("the identity is created once, saved with mode 0600, and read back the same by a second store")
    func identity() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = PairingStore(directory: directory.stateDirectory)
        #expect(try store.loadIdentity() == nil)
        let created = try store.identity()
        #expect(try directory.mode(of: "controller.json") == 0o600)
        #expect(try store.identity() == created)
        #expect(try PairingStore(directory: directory.stateDirectory).loadIdentity() == created)
    }

    @Test("pairings are saved one file each (0600), listed by name, replaced per accessory and removed")
    func pairings() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = PairingStore(directory: directory.stateDirectory)
        let hall = try pairing("aa:bb:cc:dd:ee:01", name: "hall")
        let attic = try pairing("AA:BB:CC:DD:EE:02", name: "Attic")
        let unnamed = try pairing("AA:BB:CC:DD:EE:03")
        for p in [hall, attic, unnamed] { try store.save(p) }
        #expect(
            directory.files() == [
                "pairing-AA-BB-CC-DD-EE-01.json", "pairing-AA-BB-CC-DD-EE-02.json", "pairing-AA-BB-CC-DD-EE-03.json",
            ])
        #expect(try directory.mode(of: "pairing-AA-BB-CC-DD-EE-01.json") == 0o600)
        #expect(store.loadPairings() == PairingStore.Contents(pairings: [unnamed, attic, hall], problems: []))

        var moved = hall
        moved.host = "192.168.1.21"
        try store.save(moved)
        #expect(store.loadPairings().pairings.filter { $0.accessoryPairingID == hall.accessoryPairingID } == [moved])
        try store.remove(accessoryPairingID: "AA:BB:CC:DD:EE:01")
        try store.remove(accessoryPairingID: "AA:BB:CC:DD:EE:01")
        #expect(store.loadPairings().pairings == [unnamed, attic])
        #expect(PairingStore.fileName(forAccessory: "../x/ü") == "pairing----X--.json")
        #expect(PairingStore.accessoryPairingID(fromFileName: "pairing-AA-BB-CC-DD-EE-01.json") == "AA:BB:CC:DD:EE:01")
        #expect(PairingStore.accessoryPairingID(fromFileName: "accessories-AA-BB-CC-DD-EE-01.json") == nil)
        #expect(PairingStore.accessoryPairingID(fromFileName: "pairing-.json") == nil)
    }

    @Test("a damaged pairing file is reported, skipped and left as it is; the others load")
    func damagedPairing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = PairingStore(directory: directory.stateDirectory)
        let good = try pairing("AA:BB:CC:DD:EE:01", name: "Good")
        try store.save(good)
        let damaged = directory.path + "/pairing-AA-BB-CC-DD-EE-09.json"
        let truncated = directory.path + "/pairing-AA-BB-CC-DD-EE-08.json"
        try Data(
            #"{"accessoryPairingID":"AA:BB:CC:DD:EE:09","accessoryLTPK":"AAAA","controllerPairingID":"C","host":"h","port":1}"#
                .utf8
        )
        .write(to: URL(fileURLWithPath: damaged))
        try Data(#"{"accessoryPairingID":"#.utf8).write(to: URL(fileURLWithPath: truncated))

        let contents = store.loadPairings()
        #expect(contents.pairings == [good])
        #expect(
            contents.problems == [
                .corruptFile(file: truncated, reason: "not JSON"),
                .corruptFile(file: damaged, reason: "\"accessoryLTPK\": 3 bytes where 32 were expected"),
            ])
        #expect(FileManager.default.fileExists(atPath: damaged) && FileManager.default.fileExists(atPath: truncated))
        #expect(
            contents.problems.first?.description
                == "\(truncated) is damaged (not JSON); it was left as it is: restore it from a backup or move it away")
    }

    @Test("a pairing file far larger than any pairing (100 KB, or a link to /dev/zero) is a problem, read no further")
    func oversizedPairing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = PairingStore(directory: directory.stateDirectory)
        let good = try pairing("AA:BB:CC:DD:EE:01", name: "Good")
        try store.save(good)
        let big = directory.path + "/pairing-AA-BB-CC-DD-EE-07.json"
        try Data(repeating: UInt8(ascii: " "), count: 100_000).write(to: URL(fileURLWithPath: big))
        let endless = directory.path + "/pairing-AA-BB-CC-DD-EE-06.json"
        try FileManager.default.createSymbolicLink(atPath: endless, withDestinationPath: "/dev/zero")

        let contents = store.loadPairings()
        #expect(contents.pairings == [good])
        #expect(contents.problems.count == 2)
        #expect(
            contents.problems.allSatisfy { $0.description.contains("larger than 65536 bytes") },
            "\(contents.problems)")
    }

    @Test("files written by earlier versions (Foundation's pretty-printed JSON) still read, and save compact")
    func earlierFormat() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // RFC 8032 test 1's seed and public key, as base64.
        let identityText = """
            {
              "pairingID" : "8A3C2F4E-0000-4000-8000-000000000001",
              "publicKey" : "11qYAYKxCrfVS\\/7TyWQHOg7hcvPapiMlrwIaaPcHURo=",
              "seed" : "nWGxne\\/9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A="
            }

            """
        let pairingText = """
            {
              "accessoryLTPK" : "11qYAYKxCrfVS\\/7TyWQHOg7hcvPapiMlrwIaaPcHURo=",
              "accessoryPairingID" : "AA:BB:CC:DD:EE:01",
              "controllerPairingID" : "8A3C2F4E-0000-4000-8000-000000000001",
              "host" : "192.168.1.20",
              "name" : "Lamp",
              "port" : 51826
            }

            """
        try Data(identityText.utf8).write(to: URL(fileURLWithPath: directory.path + "/controller.json"))
        try Data(pairingText.utf8).write(to: URL(fileURLWithPath: directory.path + "/pairing-AA-BB-CC-DD-EE-01.json"))
        let store = PairingStore(directory: directory.stateDirectory)
        let identity = try #require(try store.loadIdentity())
        #expect(identity.pairingID == "8A3C2F4E-0000-4000-8000-000000000001")
        #expect(identity.publicKey == hex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"))
        let pairing = try #require(store.loadPairings().pairings.first)
        #expect(pairing.name == "Lamp" && pairing.port == 51826 && pairing.accessoryLTPK == identity.publicKey)
        try store.save(pairing)
        let saved = try String(contentsOfFile: directory.path + "/pairing-AA-BB-CC-DD-EE-01.json", encoding: .utf8)
        #expect(
            saved
                == #"{"accessoryLTPK":"11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=","accessoryPairingID":"AA:BB:CC:DD:EE:01","controllerPairingID":"8A3C2F4E-0000-4000-8000-000000000001","host":"192.168.1.20","name":"Lamp","port":51826}"#
                + "\n")
        #expect(try store.pairing(accessoryPairingID: "aa:bb:cc:dd:ee:01") == pairing)
    }

    @Test("a damaged identity is an error that says to restore it, and is never replaced by a new one")
    func damagedIdentity() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path + "/controller.json"
        let text = #"{"pairingID":"X","seed":"not base64!","publicKey":""}"#
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        let store = PairingStore(directory: directory.stateDirectory)
        let error = PairingStoreError.identityUnreadable(file: file, reason: "damaged: \"seed\": not base64")
        #expect(throws: error) { try store.identity() }
        #expect(try String(contentsOfFile: file, encoding: .utf8) == text)
        #expect(
            error.description
                == "cannot load this controller's identity from \(file) (damaged: \"seed\": not base64); it was left "
                + "as it is: restore controller.json from a backup (a running gateway picks it up within seconds)")
        #expect(error.fileName == "controller.json")

        try FileManager.default.removeItem(atPath: file)
        try FileManager.default.createDirectory(atPath: file, withIntermediateDirectories: false)
        #expect(throws: PairingStoreError.identityUnreadable(file: file, reason: "cannot read file: Is a directory")) {
            try store.identity()
        }
    }

    @Test("a missing identity (or a link to nothing) beside pairing files is an error; no new one is made")
    func missingIdentity() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path + "/controller.json"
        let store = PairingStore(directory: directory.stateDirectory)
        try store.save(try pairing("AA:BB:CC:DD:EE:01"))
        try store.save(try pairing("AA:BB:CC:DD:EE:02"))
        let error = PairingStoreError.identityMissing(file: file, pairings: 2)
        #expect(throws: error) { try store.identity() }
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(
            error.description
                == "\(file) is missing, but the state directory holds 2 pairing files made with it, which no new "
                + "identity can use: restore controller.json from a backup (a running gateway picks it up within "
                + "seconds); or, to start over, remove the pairing files and reset the accessories")

        try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: directory.path + "/gone.json")
        #expect(throws: error) { try store.identity() }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: file) == directory.path + "/gone.json")

        try FileManager.default.removeItem(atPath: file)
        try store.remove(accessoryPairingID: "AA:BB:CC:DD:EE:01")
        try store.remove(accessoryPairingID: "AA:BB:CC:DD:EE:02")
        let fresh = try store.identity()
        #expect(try store.loadIdentity() == fresh, "without pairings, a new identity is made")
    }
}
