import Foundation
import Testing

@testable import HAPController

@Suite("AccessoryCache")
struct AccessoryCacheTests {
    /// The number of names of `name`'s file. The test gives the saved file a second name: an atomic
    /// write puts a new file under the cache's name, which then has one name again.
    private static func links(_ directory: TemporaryDirectory, _ name: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.path + "/" + name)
        return (attributes[.referenceCount] as? NSNumber)?.intValue ?? 0
    }

    @Test("an unchanged accessory list is not written again; a changed one is")
    func unchangedListIsNotRewritten() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = AccessoryCache(directory: directory.stateDirectory, accessoryPairingID: "AA:BB:CC:DD:EE:FF")
        let first = Array(#"{"accessories":[{"aid":1,"services":[]}]}"#.utf8)
        try cache.save(first)
        try FileManager.default.linkItem(
            atPath: directory.path + "/" + cache.fileName, toPath: directory.path + "/saved-once")
        #expect(try Self.links(directory, cache.fileName) == 2)

        try cache.save(first)
        #expect(try Self.links(directory, cache.fileName) == 2, "the same bytes leave the file alone")

        let second = Array(#"{"accessories":[{"aid":1,"services":[]},{"aid":2,"services":[]}]}"#.utf8)
        try cache.save(second)
        #expect(try Self.links(directory, cache.fileName) == 1, "other bytes replace the file")
        let stored = try #require(try directory.stateDirectory.read(cache.fileName))
        #expect(Array(stored) == second)
    }
}
