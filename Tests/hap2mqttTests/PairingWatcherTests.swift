import Foundation
import HAP2MQTTTesting
import HAPController
import HomeModel
import HomeStore
import Logging
import Synchronization
import SystemSupport
import Testing

@testable import hap2mqtt

/// `PairingWatcher` against a real state directory and a running home store, with in-memory providers
/// standing in for the HAP ones.
@Suite("The pairing watcher of hap2mqtt run")
struct PairingWatcherTests {
    static let id = "AA:BB:CC:DD:EE:01"

    static func pairing(port: UInt16 = 51826) -> Pairing {
        Pairing(
            accessoryPairingID: id, accessoryLTPK: Array(repeating: 7, count: 32), controllerPairingID: "CTRL",
            host: "127.0.0.1", port: port, name: "Bridge")
    }

    /// A store with the provider for `pairing()`, its watcher, and how many providers the watcher made.
    static func scene(_ files: TemporaryFiles) async throws -> (HomeStore, PairingWatcher, Counter, StateDirectory) {
        let directory = StateDirectory(path: files.path)
        try PairingStore(directory: directory).save(pairing())
        let made = Counter()
        let make: @Sendable (Pairing) -> any AccessoryProvider = { pairing in
            made.increment()
            return InMemoryAccessoryProvider(
                id: HAPAccessoryProvider.providerID(for: pairing), serverID: pairing.accessoryPairingID,
                accessories: [
                    InMemoryAccessoryProvider.accessory(
                        aid: 2, name: "Lamp", serverID: pairing.accessoryPairingID, services: [.Service.lightbulb])
                ])
        }
        let store = HomeStore(logger: Logger(label: "homestore"))
        await store.add(make(pairing()))
        await store.start()
        await store.waitUntilReady()
        let watcher = PairingWatcher(
            store: store, stateDirectory: directory, pairings: [pairing()], logger: Logger(label: "hap2mqtt"),
            makeProvider: make)
        return (store, watcher, made, directory)
    }

    @Test(
        "a damaged file, or one holding another accessory's id, changes nothing; repaired, the pairing reconnects once")
    func damagedFile() async throws {
        let files = try TemporaryFiles()
        defer { files.remove() }
        let (store, watcher, made, directory) = try await Self.scene(files)
        let file = directory.url(PairingStore.fileName(forAccessory: Self.id))
        let good = try Data(contentsOf: file)

        await watcher.check()
        #expect(made.value == 1, "nothing changed, nothing made")

        try (good + Data("garbage{".utf8)).write(to: file)
        await watcher.check()
        await watcher.check()
        #expect(made.value == 1)
        #expect(await store.accessories().count == 1, "the accessory stays")

        let otherID = String(decoding: good, as: UTF8.self).replacingOccurrences(of: Self.id, with: "AA:BB:CC:DD:EE:02")
        try Data(otherID.utf8).write(to: file)
        await watcher.check()
        #expect(made.value == 1)
        #expect(await store.providerIDs == ["hap:\(Self.id)"])
        #expect(await store.accessories().count == 1)

        try good.write(to: file)
        await watcher.check()
        await watcher.check()
        #expect(made.value == 2, "the file was written again: one new provider in the old one's place")
        #expect(await store.accessories().count == 1)
        await store.stop()
    }

    @Test("a new port is a new provider in place; a deleted file removes the accessories")
    func changedAndRemoved() async throws {
        let files = try TemporaryFiles()
        defer { files.remove() }
        let (store, watcher, made, directory) = try await Self.scene(files)
        try PairingStore(directory: directory).save(Self.pairing(port: 51827))
        await watcher.check()
        #expect(made.value == 2)
        #expect(await store.providerIDs == ["hap:\(Self.id)"])

        try PairingStore(directory: directory).remove(accessoryPairingID: Self.id)
        await watcher.check()
        #expect(await store.providerIDs.isEmpty)
        #expect(await store.accessories().isEmpty)
        await store.stop()
    }
}

/// How many providers the watcher made.
final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
