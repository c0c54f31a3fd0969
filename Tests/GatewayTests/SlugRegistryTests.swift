import Foundation
import Gateway
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

    @Test("a corrupt slug map is moved aside, not overwritten, and the gateway starts with a new one")
    func corruptFile() throws {
        let dir = directory()
        defer { try? FileManager.default.removeItem(atPath: dir.path) }
        try dir.write(Data("{ not json".utf8), to: SlugRegistry.fileName)
        var registry = SlugRegistry(directory: dir, logger: Logger(label: "gateway"))
        #expect(try dir.read(SlugRegistry.fileName + ".corrupt") == Data("{ not json".utf8))
        #expect(registry.slug(for: AccessoryID(serverID: "AA:AA:AA:AA:AA:AA", aid: 2), name: "Lamp") == "lamp")
    }
}
