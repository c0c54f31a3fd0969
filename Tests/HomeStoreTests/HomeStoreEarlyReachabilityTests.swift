import HAP2MQTTTesting
import HomeModel
import HomeStore
import Logging
import Testing

/// A provider that starts from a cached structure reports its accessories unreachable before it syncs
/// them; the store must never show them online in between.
@Suite("Home store: unreachable before the first sync")
struct HomeStoreEarlyReachabilityTests {
    @Test("accessories reported unreachable before their sync arrive unreachable, with the reason, and never online")
    func unreachableBeforeSync() async throws {
        let lamp = Fixture.lamp()
        let thermometer = Fixture.thermometer()
        let provider = InMemoryAccessoryProvider(accessories: [lamp, thermometer], autoSync: false)
        let store = HomeStore(logger: Logger(label: "homestore"))
        await store.add(provider)
        let changes = Recorder.following(batches: await store.subscribe().changes)
        await store.start()
        provider.send(.reachability([lamp.id], reachable: false, reason: "cannot reach it"))
        provider.completeSync()
        await store.waitUntilReady()

        #expect(await !store.isReachable(lamp.id))
        #expect(await store.isReachable(thermometer.id))
        #expect(await store.subscribe().unreachable == [lamp.id: "cannot reach it"])
        #expect(await changes.waitUntil { $0.count >= 3 })
        #expect(await changes.items.map(\.summary) == ["added 2", "added 3", "reachable 2 false"])

        provider.setReachable([lamp.id], true)
        #expect(await changes.waitUntil { $0.count >= 4 })
        #expect(await changes.items.last?.summary == "reachable 2 true")
        await store.stop()
    }

    @Test("a reachable report before the sync cancels an earlier unreachable one")
    func reachableAgainBeforeSync() async throws {
        let lamp = Fixture.lamp()
        let provider = InMemoryAccessoryProvider(accessories: [lamp], autoSync: false)
        let store = HomeStore(logger: Logger(label: "homestore"))
        await store.add(provider)
        await store.start()
        provider.send(.reachability([lamp.id], reachable: false, reason: "down"))
        provider.send(.reachability([lamp.id], reachable: true, reason: nil))
        provider.completeSync()
        await store.waitUntilReady()
        #expect(await store.isReachable(lamp.id))
        await store.stop()
    }
}
