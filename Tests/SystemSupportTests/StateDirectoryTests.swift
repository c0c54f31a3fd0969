import Foundation
import SystemSupport
import Testing

@Suite("State directory")
struct StateDirectoryTests {
    @Test("files are written whole with mode 0600 and read back")
    func atomicWrite() throws {
        let dir = StateDirectory(path: NSTemporaryDirectory() + "hap2mqtt-state-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: dir.path) }
        try dir.write(Data("first".utf8), to: "pairing.json")
        try dir.write(Data("second".utf8), to: "pairing.json")
        #expect(try dir.read("pairing.json") == Data("second".utf8))
        let attrs = try FileManager.default.attributesOfItem(atPath: dir.url("pairing.json").path)
        #expect((attrs[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let dirAttrs = try FileManager.default.attributesOfItem(atPath: dir.path)
        #expect((dirAttrs[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        #expect(dir.files(withSuffix: ".json") == ["pairing.json"])
        #expect(try dir.read("missing.json") == nil)
        try dir.remove("pairing.json")
        #expect(dir.files(withSuffix: ".json").isEmpty)
    }

    @Test("a file that cannot be read is an error with the system's reason; a link to nothing is no file")
    func readFailure() throws {
        let dir = StateDirectory(path: NSTemporaryDirectory() + "hap2mqtt-state-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: dir.path) }
        try dir.create()
        try FileManager.default.createDirectory(atPath: dir.url("a.json").path, withIntermediateDirectories: false)
        #expect(
            throws: StateDirectoryError.io(path: dir.url("a.json").path, reason: "cannot read file: Is a directory")
        ) {
            try dir.read("a.json")
        }
        try FileManager.default.createSymbolicLink(atPath: dir.url("b.json").path, withDestinationPath: "/nonexistent")
        #expect(try dir.read("b.json") == nil)
    }

    @Test("a write into an unwritable place fails with the path in the error")
    func failure() {
        let dir = StateDirectory(path: "/proc/hap2mqtt-cannot-exist")
        #expect(throws: StateDirectoryError.self) { try dir.write(Data("x".utf8), to: "a.json") }
    }

    @Test("a damaged file moved aside never replaces an earlier copy")
    func moveAside() throws {
        let dir = StateDirectory(path: NSTemporaryDirectory() + "hap2mqtt-state-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: dir.path) }
        try dir.write(Data("one".utf8), to: "slugs.json")
        #expect(try dir.moveAside("slugs.json") == "slugs.json.corrupt")
        try dir.write(Data("two".utf8), to: "slugs.json")
        #expect(try dir.moveAside("slugs.json") == "slugs.json.corrupt.2")
        #expect(try dir.read("slugs.json") == nil)
        #expect(try dir.read("slugs.json.corrupt") == Data("one".utf8))
        #expect(try dir.read("slugs.json.corrupt.2") == Data("two".utf8))
        #expect(throws: StateDirectoryError.self) { try dir.moveAside("missing.json") }
    }
}
