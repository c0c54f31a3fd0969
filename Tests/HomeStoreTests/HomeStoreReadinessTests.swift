import HAP2MQTTTesting
import HomeModel
import HomeStore
import Logging
import Testing

@Suite("Home store: readiness, subscriptions and placement")
struct HomeStoreReadinessTests {
    @Test("before the first sync nothing is ready, streamed, written, read or identified")
    func notReadyBeforeSync() async throws {
        let lamp = Fixture.lamp()
        let provider = InMemoryAccessoryProvider(accessories: [lamp], autoSync: false)
        let store = HomeStore(logger: Logger(label: "homestore"))
        await store.add(provider)
        await store.start()
        #expect(await !store.isReady)

        let early = await store.subscribe()
        #expect(early.snapshot.isEmpty)
        let changes = Recorder.following(batches: early.changes)
        let on = try Fixture.address(lamp, .Characteristic.on)
        await #expect(throws: HomeStoreError.notReady) { try await store.write(on, value: .bool(true)) }
        #expect(await store.read([on])[on].map { if case .failure(.notReady) = $0 { true } else { false } } == true)
        await #expect(throws: HomeStoreError.notReady) { try await store.identify(lamp.id) }
        #expect(provider.writes.isEmpty && provider.reads.isEmpty && provider.identified.isEmpty)

        let waiter = Task {
            await store.waitUntilReady()
            return await store.isReady
        }
        provider.changeValue(on, to: .bool(true))
        provider.completeSync()
        #expect(await waiter.value)

        #expect(await changes.waitUntil { !$0.isEmpty })
        #expect(await changes.batches.first?.map(\.summary) == ["added 2"])
        let late = await store.subscribe()
        #expect(late.snapshot.map(\.id) == [lamp.id])
        #expect(await store.accessory(lamp.id)?.allCharacteristics.first { $0.iid == on.iid }?.value == .bool(true))
        await store.stop()
    }

    @Test("a store without providers is ready at once")
    func readyWithoutProviders() async {
        let store = HomeStore(logger: Logger(label: "homestore"))
        await store.waitUntilReady()
        #expect(await store.isReady)
        #expect(await store.accessories().isEmpty)
    }

    @Test("readiness waits for every provider; a failed first sync counts as finished")
    func everyProvider() async throws {
        let first = InMemoryAccessoryProvider(id: "first", accessories: [Fixture.lamp()])
        let second = InMemoryAccessoryProvider(
            id: "second", serverID: "00:00:00:00:00:02",
            accessories: [
                InMemoryAccessoryProvider.accessory(
                    aid: 1, name: "Other", serverID: "00:00:00:00:00:02", services: [.Service.switch])
            ],
            autoSync: false)
        let store = HomeStore(logger: Logger(label: "homestore"))
        await store.add(first)
        await store.add(second)
        await store.start()
        #expect(await eventually { await store.accessory(Fixture.id(2)) != nil })
        #expect(await !store.isReady)

        second.failSync("server unreachable")
        await store.waitUntilReady()
        #expect(await store.isReady)
        let subscription = await store.subscribe()
        #expect(subscription.snapshot.map(\.aid) == [2])
        let changes = Recorder.following(batches: subscription.changes)
        second.completeSync()
        #expect(await changes.waitUntil { $0.map(\.summary) == ["added 1"] })
        #expect(await store.accessories().count == 2)
        await store.stop()
    }

    @Test("a subscriber gets the snapshot and then every change once, even while values pour in")
    func snapshotAndStream() async throws {
        let (lamp, provider, store, _) = await lampScene()
        let brightness = try Fixture.address(lamp, .Characteristic.brightness)

        let first = await store.subscribe()
        let firstChanges = Recorder.following(batches: first.changes)
        var midway: HomeSubscription?
        for round in 0..<20 {
            provider.changeValues((1...50).map { (brightness, .int(Int64(($0 + round) % 101))) })
            if round == 10 { midway = await store.subscribe() }
        }
        provider.changeValue(brightness, to: .int(77))
        let second = try #require(midway)
        let secondChanges = Recorder.following(batches: second.changes)
        let finalValue = "value 2.\(brightness.iid)=77 event"
        #expect(await firstChanges.waitUntil { $0.last?.summary == finalValue })
        #expect(await secondChanges.waitUntil { $0.last?.summary == finalValue })

        // Replaying each subscriber's changes over its snapshot gives the store's state.
        for (subscription, recorder) in [(first, firstChanges), (second, secondChanges)] {
            var value = subscription.snapshot.first?.allCharacteristics.first { $0.iid == brightness.iid }?.value
            var previous = value
            for change in await recorder.items {
                guard case .valueChanged(let address, let new, _) = change, address == brightness else { continue }
                #expect(new != previous, "a value was repeated: \(String(describing: new))")
                previous = new
                value = new
            }
            #expect(value == .int(77))
        }
        #expect(await store.characteristic(brightness)?.value == .int(77))
        await store.stop()
    }

    @Test("a burst of values costs one batch, not one per value")
    func batches() async throws {
        let (lamp, provider, store, _) = await lampScene()
        let brightness = try Fixture.address(lamp, .Characteristic.brightness)
        let changes = Recorder.following(batches: await store.subscribe().changes)
        provider.changeValues((1...100).map { (brightness, .int(Int64($0))) })
        #expect(await changes.waitUntil { $0.count == 100 })
        #expect(await changes.batches.count == 1)
        await store.stop()
        #expect(await changes.waitUntilFinished())
    }

    @Test("configured names, rooms and homes override the accessory's; the first home is the default")
    func overrides() async throws {
        let provider = InMemoryAccessoryProvider(accessories: [Fixture.lamp(), Fixture.thermometer()])
        let configuration = HomeStoreConfiguration(
            homes: [Home(name: "Home", rooms: [Room(name: "Kitchen")]), Home(name: "Cabin")],
            overrides: [Fixture.id(2): AccessoryOverride(name: "Kitchen Lamp", room: "Kitchen")])
        let store = await readyStore(provider, configuration: configuration)
        let lamp = try #require(await store.accessory(Fixture.id(2)))
        #expect(lamp.name == "Kitchen Lamp" && lamp.configuredName == "Kitchen Lamp")
        #expect(lamp.room == "Kitchen" && lamp.home == "Home")
        let thermometer = try #require(await store.accessory(Fixture.id(3)))
        #expect(thermometer.name == "Thermometer" && thermometer.room == nil && thermometer.home == "Home")
        #expect(await store.homes.map(\.name) == ["Home", "Cabin"])

        let changes = Recorder.following(batches: await store.subscribe().changes)
        var moved = configuration
        moved.overrides[Fixture.id(3)] = AccessoryOverride(room: "Porch", home: "Cabin")
        await store.configure(moved)
        #expect(await changes.waitUntil { $0.map(\.summary) == ["updated 3"] })
        #expect(await store.accessory(Fixture.id(3))?.home == "Cabin")
        #expect(await store.accessory(Fixture.id(3))?.room == "Porch")
        #expect(await store.configuration.overrides.count == 2)

        // A resync keeps the overrides and is no change.
        provider.resync()
        provider.changeValue(try Fixture.address(Fixture.lamp(), .Characteristic.on), to: .bool(true))
        #expect(await changes.waitUntil { $0.count == 2 })
        #expect(await changes.items.map(\.summary) == ["updated 3", "value 2.9=true event"])
        await store.stop()
    }

    @Test("stopping finishes every subscription and refuses later writes")
    func stop() async throws {
        let (lamp, provider, store, changes) = await lampScene()
        await store.stop()
        #expect(await changes.waitUntilFinished())
        let on = try Fixture.address(lamp, .Characteristic.on)
        await #expect(throws: HomeStoreError.self) { try await store.write(on, value: .bool(true)) }
        #expect(provider.writes.isEmpty)
    }
}
