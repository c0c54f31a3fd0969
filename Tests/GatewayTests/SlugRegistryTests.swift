import Foundation
import Gateway
import HAP2MQTTTesting
import HomeModel
import HomeStore
import Logging
import SystemSupport
import Testing

@Suite("Slug registry")
struct SlugRegistryTests {
    private func directory() -> StateDirectory {
        StateDirectory(path: NSTemporaryDirectory() + "hap2mqtt-slugs-\(UUID().uuidString)")
    }

    @Test("names become unique slugs; bridge is reserved; a slug stays with its accessory")
    func uniqueness() {
        var registry = SlugRegistry(directory: nil, logger: Logger(label: "gateway"))
        let a = AccessoryID(serverID: "AA:AA:AA:AA:AA:AA", aid: 2)
        let b = AccessoryID(serverID: "AA:AA:AA:AA:AA:AA", aid: 3)
        let c = AccessoryID(serverID: "BB:BB:BB:BB:BB:BB", aid: 2)
        #expect(registry.slug(for: a, name: "Küche Lampe") == "kuche_lampe")
        #expect(registry.slug(for: b, name: "Küche  Lampe!") == "kuche_lampe_2")
        #expect(registry.slug(for: c, name: "Bridge") == "bridge_2")
        #expect(registry.slug(for: a, name: "Something Else") == "kuche_lampe")
        #expect(registry.accessory(forSlug: "kuche_lampe_2") == b)
    }

    @Test("a rename is refused with the reason that applies: reserved names named as such, bad characters")
    func renameRefusals() {
        var registry = SlugRegistry(directory: nil, logger: Logger(label: "gateway"))
        let a = AccessoryID(serverID: "AA:AA:AA:AA:AA:AA", aid: 2)
        _ = registry.slug(for: a, name: "Lamp")
        for (slug, reason) in [
            ("response", "'response' is reserved for the gateway's own topics ('bridge', 'groups', 'response')"),
            ("bridge", "'bridge' is reserved for the gateway's own topics ('bridge', 'groups', 'response')"),
            ("Lamp X", "use lower-case letters, digits, '_' and '-' only"),
        ] {
            #expect(throws: GatewayError.invalidSlug(slug, reason: reason)) { try registry.rename(a, to: slug) }
        }
        #expect(registry.slug(of: a) == "lamp")
    }

    @Test("letters of their own (ø, æ, ß, ł) are spelt in ASCII, not dropped")
    func lettersWithoutDiacriticsAreSpelt() {
        #expect(Slug.make("Kjøkken Lys") == "kjokken_lys")
        #expect(Slug.make("STRAẞE Æble Œuvre") == "strasse_aeble_oeuvre")
        #expect(Slug.make("Łódź Þór Iıi") == "lodz_thor_iii")
        #expect(Slug.make("Küche 台所") == "kuche", "letters with no ASCII spelling still become a separator")
    }

    @Test("a long name makes a slug of at most 64 characters, numbered within the limit; a longer rename is refused")
    func lengthLimit() throws {
        var registry = SlugRegistry(directory: nil, logger: Logger(label: "gateway"))
        let name = String(repeating: "Lamp ", count: 40)
        let a = registry.slug(for: AccessoryID(serverID: "AA:AA:AA:AA:AA:AA", aid: 2), name: name)
        let b = registry.slug(for: AccessoryID(serverID: "AA:AA:AA:AA:AA:AA", aid: 3), name: name)
        #expect(a.count <= Slug.maximumLength && a.hasPrefix("lamp_lamp") && !a.hasSuffix("_"))
        #expect(b.count <= Slug.maximumLength && b.hasSuffix("_2") && b != a)
        #expect(
            throws: GatewayError.invalidSlug(
                String(repeating: "x", count: 40) + "…", reason: "it is 65 characters long; a slug has at most 64")
        ) {
            try registry.rename(
                AccessoryID(serverID: "AA:AA:AA:AA:AA:AA", aid: 2), to: String(repeating: "x", count: 65))
        }
        try registry.rename(AccessoryID(serverID: "AA:AA:AA:AA:AA:AA", aid: 2), to: String(repeating: "x", count: 64))
    }

    @Test("many new slugs are saved in one write, and read back by the next start")
    func batchedSave() throws {
        let dir = directory()
        defer { try? FileManager.default.removeItem(atPath: dir.path) }
        var registry = SlugRegistry(directory: dir, logger: Logger(label: "gateway"))
        for aid in 2..<500 {
            _ = registry.slug(for: AccessoryID(serverID: "AA:AA:AA:AA:AA:AA", aid: aid), name: "Light \(aid)")
        }
        #expect(registry.hasUnsavedChanges)
        #expect(try dir.read(SlugRegistry.fileName) == nil, "nothing is written per accessory")
        registry.saveIfChanged()
        #expect(!registry.hasUnsavedChanges)
        let reloaded = SlugRegistry(directory: dir, logger: Logger(label: "gateway"))
        #expect(reloaded.accessory(forSlug: "light_499") == AccessoryID(serverID: "AA:AA:AA:AA:AA:AA", aid: 499))
    }

    @Test("forgetting an accessory frees its slug for the next one, and the map on disk says so")
    func forget() throws {
        let dir = directory()
        defer { try? FileManager.default.removeItem(atPath: dir.path) }
        var registry = SlugRegistry(directory: dir, logger: Logger(label: "gateway"))
        let old = AccessoryID(serverID: "AA:AA:AA:AA:AA:AA", aid: 1)
        let reset = AccessoryID(serverID: "CC:CC:CC:CC:CC:CC", aid: 1)
        #expect(registry.slug(for: old, name: "Eve Energy") == "eve_energy")
        registry.forget(old)
        registry.saveIfChanged()
        #expect(registry.slug(of: old) == nil && registry.accessory(forSlug: "eve_energy") == nil)
        #expect(SlugRegistry(directory: dir, logger: Logger(label: "gateway")).slug(of: old) == nil, "saved")
        #expect(registry.slug(for: reset, name: "Eve Energy") == "eve_energy", "not eve_energy_2")
    }

    @Test("a corrupt slug map is moved aside, not overwritten, and the gateway starts with a new one")
    func corruptFile() throws {
        let dir = directory()
        defer { try? FileManager.default.removeItem(atPath: dir.path) }
        try dir.write(Data("{ not json".utf8), to: SlugRegistry.fileName)
        var registry = SlugRegistry(directory: dir, logger: Logger(label: "gateway"))
        #expect(try dir.read(SlugRegistry.fileName + ".corrupt") == Data("{ not json".utf8))
        #expect(registry.slug(for: AccessoryID(serverID: "AA:AA:AA:AA:AA:AA", aid: 2), name: "Lamp") == "lamp")
    }

    @Test("a second corrupt slug map is moved aside next to the first, which stays")
    func secondCorruptFile() throws {
        let dir = directory()
        defer { try? FileManager.default.removeItem(atPath: dir.path) }
        try dir.write(Data("first".utf8), to: SlugRegistry.fileName + ".corrupt")
        try dir.write(Data("[1]".utf8), to: SlugRegistry.fileName)
        let log = LogCapture()
        _ = SlugRegistry(directory: dir, logger: log.logger(label: "gateway"))
        #expect(try dir.read(SlugRegistry.fileName + ".corrupt") == Data("first".utf8))
        #expect(try dir.read(SlugRegistry.fileName + ".corrupt.2") == Data("[1]".utf8))
        #expect(try dir.read(SlugRegistry.fileName) == nil)
        #expect(log.records(.error, containing: "moved aside to slugs.json.corrupt.2").count == 1)
    }

    @Test("an entry that is not a string is skipped with a warning; the other slugs stay")
    func entryNotAString() throws {
        let dir = directory()
        defer { try? FileManager.default.removeItem(atPath: dir.path) }
        let file = #"{"DE:30:A0:00:00:01/2":"desk_lamp","DE:30:A0:00:00:01/3":5}"#
        try dir.write(Data(file.utf8), to: SlugRegistry.fileName)
        let log = LogCapture()
        var registry = SlugRegistry(directory: dir, logger: log.logger(label: "gateway"))
        #expect(registry.slug(of: AccessoryID(serverID: "DE:30:A0:00:00:01", aid: 2)) == "desk_lamp")
        #expect(registry.slug(for: AccessoryID(serverID: "DE:30:A0:00:00:01", aid: 3), name: "Fan") == "fan")
        #expect(
            log.records(.warning, containing: "skipped the slug of accessory DE:30:A0:00:00:01/3: it is not a string")
                .count == 1)
        #expect(log.all.filter { $0.level == .error }.isEmpty, "\(log.lines)")
        #expect(try dir.read(SlugRegistry.fileName + ".corrupt") == nil)
    }

    @Test("a slug map that cannot be read is never written: slugs stay in memory, a rename is refused")
    func unreadableFile() throws {
        let dir = directory()
        defer { try? FileManager.default.removeItem(atPath: dir.path) }
        // A directory where the file should be cannot be read, by root too.
        try FileManager.default.createDirectory(
            atPath: dir.url(SlugRegistry.fileName).path, withIntermediateDirectories: true)
        try Data("kept".utf8).write(to: dir.url(SlugRegistry.fileName).appendingPathComponent("inside"))
        let log = LogCapture()
        var registry = SlugRegistry(directory: dir, logger: log.logger(label: "gateway"))
        let lamp = AccessoryID(serverID: "AA:AA:AA:AA:AA:AA", aid: 2)
        #expect(registry.slug(for: lamp, name: "Lamp") == "lamp")
        registry.saveIfChanged()
        let lines = log.all.filter { $0.level == .error }
        #expect(lines.count == 1, "\(log.lines)")
        #expect(lines.first?.message.contains(dir.url(SlugRegistry.fileName).path) == true)
        #expect(lines.first?.message.contains("fix it") == true)
        do {
            try registry.rename(lamp, to: "desk")
            Issue.record("the rename was made")
        } catch {
            guard case .slugMapNotSaved = error else { throw error }
            #expect(error.description.hasPrefix("cannot save the slug map: \(dir.url(SlugRegistry.fileName).path)"))
        }
        #expect(registry.slug(of: lamp) == "lamp")
        #expect(registry.accessory(forSlug: "desk") == nil)
        #expect(
            try Data(contentsOf: dir.url(SlugRegistry.fileName).appendingPathComponent("inside")) == Data("kept".utf8))
    }

    @Test("a slug map its user may not read is left as it is", .enabled(if: getuid() != 0, "root reads any file"))
    func unreadableByPermissions() throws {
        let dir = directory()
        defer { try? FileManager.default.removeItem(atPath: dir.path) }
        let lamp = AccessoryID(serverID: "AA:AA:AA:AA:AA:AA", aid: 2)
        try dir.write(Data(#"{"AA:AA:AA:AA:AA:AA/2":"my_lamp"}"#.utf8), to: SlugRegistry.fileName)
        chmod(dir.url(SlugRegistry.fileName).path, 0)
        var registry = SlugRegistry(directory: dir, logger: Logger(label: "gateway"))
        _ = registry.slug(for: AccessoryID(serverID: "AA:AA:AA:AA:AA:AA", aid: 3), name: "Fan")
        registry.saveIfChanged()
        #expect(throws: GatewayError.self) { try registry.rename(lamp, to: "desk") }
        chmod(dir.url(SlugRegistry.fileName).path, 0o600)
        #expect(try dir.read(SlugRegistry.fileName) == Data(#"{"AA:AA:AA:AA:AA:AA/2":"my_lamp"}"#.utf8))
    }

    @Test("a rename that cannot be saved is undone: the accessory keeps its slug, the new one stays free")
    func renameNotSaved() throws {
        let dir = directory()
        defer { try? FileManager.default.removeItem(atPath: dir.path) }
        var registry = SlugRegistry(directory: dir, logger: Logger(label: "gateway"))
        let lamp = AccessoryID(serverID: "AA:AA:AA:AA:AA:AA", aid: 2)
        #expect(registry.slug(for: lamp, name: "Lamp") == "lamp")
        registry.saveIfChanged()
        // A directory in the file's place makes the save's rename fail, as a full disk would the write.
        try dir.remove(SlugRegistry.fileName)
        try FileManager.default.createDirectory(
            atPath: dir.url(SlugRegistry.fileName).appendingPathComponent("x").path, withIntermediateDirectories: true)
        #expect(throws: GatewayError.self) { try registry.rename(lamp, to: "desk") }
        #expect(registry.slug(of: lamp) == "lamp")
        #expect(registry.accessory(forSlug: "lamp") == lamp)
        #expect(registry.accessory(forSlug: "desk") == nil)
    }
}
