import HAP2MQTTTesting
import HomeModel
import HomeStore
import Logging
import Testing

/// An `AccessoryProvider` without snapshots: the in-memory provider seen through the base protocol only.
private struct ProviderWithoutCamera: AccessoryProvider {
    let wrapped: InMemoryAccessoryProvider
    var id: String { "no-camera" }
    var events: ProviderEventQueue { wrapped.events }
    func start() async { await wrapped.start() }
    func stop() async { await wrapped.stop() }
    func read(_ addresses: [CharacteristicAddress]) async -> [CharacteristicAddress: Result<
        CharacteristicValue?, AccessoryError
    >] {
        await wrapped.read(addresses)
    }
    nonisolated(nonsending) func write(_ writes: [CharacteristicWrite]) async -> [CharacteristicAddress: Result<
        CharacteristicValue?, AccessoryError
    >] {
        await wrapped.write(writes)
    }
    func identify(_ accessory: AccessoryID) async throws(AccessoryError) { try await wrapped.identify(accessory) }
}

@Suite("Home store: camera snapshots")
struct HomeStoreSnapshotTests {
    func snapshot(_ store: HomeStore, _ id: AccessoryID) async -> Result<[UInt8], HomeStoreError> {
        do {
            return .success(try await store.snapshot(id, width: 640, height: 480))
        } catch {
            return .failure(error)
        }
    }

    @Test(
        "a snapshot goes to the provider that owns the camera; its refusal, an offline camera and an unknown one are errors"
    )
    func routing() async throws {
        let camera = InMemoryAccessoryProvider.accessory(aid: 2, name: "Camera", services: [try Fixture.type("110")])
        let other = InMemoryAccessoryProvider(
            id: "other", serverID: "00:00:00:00:00:02",
            accessories: [
                InMemoryAccessoryProvider.accessory(
                    aid: 2, name: "Garden Camera", serverID: "00:00:00:00:00:02", services: [try Fixture.type("110")])
            ])
        let provider = InMemoryAccessoryProvider(accessories: [camera])
        let store = await readyStore(provider, other)
        provider.setSnapshot([0xFF, 0xD8, 1, 0xFF, 0xD9], for: camera.id)
        #expect(await snapshot(store, camera.id) == .success([0xFF, 0xD8, 1, 0xFF, 0xD9]))
        #expect(
            provider.snapshotRequests.map { "\($0.accessory) \($0.width)x\($0.height)" } == ["\(camera.id) 640x480"])
        #expect(other.snapshotRequests.isEmpty, "only the owner is asked")
        let garden = AccessoryID(serverID: "00:00:00:00:00:02", aid: 2)
        #expect(await snapshot(store, garden) == .failure(.status(.resourceDoesNotExist)), "the provider's refusal")
        let unknown = AccessoryID(serverID: "00:00:00:00:00:09", aid: 2)
        #expect(await snapshot(store, unknown) == .failure(.unknownAccessory(unknown)))
        provider.setReachable([camera.id], false)
        #expect(
            await eventually {
                if case .failure(.unreachable) = await snapshot(store, camera.id) { true } else { false }
            })
        await store.stop()
    }

    @Test("a backend without snapshots says so")
    func withoutCapability() async throws {
        let camera = InMemoryAccessoryProvider.accessory(aid: 2, name: "Camera", services: [try Fixture.type("110")])
        let store = HomeStore(configuration: .init(), logger: Logger(label: "homestore"))
        await store.add(ProviderWithoutCamera(wrapped: InMemoryAccessoryProvider(accessories: [camera])))
        await store.start()
        await store.waitUntilReady()
        guard case .failure(.failed(let why)) = await snapshot(store, camera.id) else {
            Issue.record("no failure")
            return
        }
        #expect(why.contains("cannot take snapshots"), "\(why)")
        await store.stop()
    }
}
