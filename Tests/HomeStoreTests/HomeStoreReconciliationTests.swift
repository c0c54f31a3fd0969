import HAP2MQTTTesting
import HomeModel
import HomeStore
import Testing

@Suite("Home store: syncs, values and reachability from providers")
struct HomeStoreReconciliationTests {
    @Test("a resync reports added, removed and updated accessories and values that differ")
    func resync() async throws {
        let provider = InMemoryAccessoryProvider(accessories: [Fixture.lamp(), Fixture.thermometer(), Fixture.button()])
        let store = await readyStore(provider)
        let changes = Recorder.following(batches: await store.subscribe().changes)

        var lamp = Fixture.lamp()
        let on = try Fixture.address(lamp, .Characteristic.on)
        lamp.services[1].characteristics[0].value = .bool(true)
        let thermometer = InMemoryAccessoryProvider.accessory(
            aid: 3, name: "Thermometer", services: [.Service.temperatureSensor, .Service.humiditySensor])
        let outlet = InMemoryAccessoryProvider.accessory(aid: 5, name: "Outlet", services: [.Service.outlet])
        provider.replaceAccessories([lamp, thermometer, outlet])
        provider.resync()

        let expected = ["value 2.\(on.iid)=true sync", "updated 3", "added 5", "removed 4"]
        #expect(await changes.waitUntil { $0.count >= expected.count })
        #expect(await changes.items.map(\.summary) == expected)
        #expect(await store.accessories().map(\.aid) == [2, 3, 5])
        #expect(await store.accessory(Fixture.id(3))?.services.count == 3)
        #expect(await store.characteristic(on)?.value == .bool(true))

        // The same sync again changes nothing.
        provider.resync()
        provider.changeValue(on, to: .bool(false))
        #expect(await changes.waitUntil { $0.count == expected.count + 1 })
        #expect(await changes.items.last?.summary == "value 2.\(on.iid)=false event")
        await store.stop()
    }

    @Test("changed metadata is an update; a sync without a value keeps the last one")
    func metadata() async throws {
        let provider = InMemoryAccessoryProvider(accessories: [Fixture.lamp()])
        let store = await readyStore(provider)
        let changes = Recorder.following(batches: await store.subscribe().changes)
        var lamp = Fixture.lamp()
        let brightness = try Fixture.address(lamp, .Characteristic.brightness)
        let on = try Fixture.address(lamp, .Characteristic.on)
        lamp.services[1].characteristics[1].maxValue = 50
        provider.update(lamp)
        #expect(await changes.waitUntil { $0.map(\.summary) == ["updated 2"] })
        guard case .accessoryUpdated(let old, let new)? = await changes.items.first else {
            Issue.record("no update")
            return
        }
        #expect(old.allCharacteristics.first { $0.iid == brightness.iid }?.maxValue == 100)
        #expect(new.allCharacteristics.first { $0.iid == brightness.iid }?.maxValue == 50)
        #expect(await store.characteristic(brightness)?.maxValue == 50)

        lamp.services[1].characteristics[0].value = nil
        provider.update(lamp)
        provider.changeValue(brightness, to: .int(20))
        #expect(await changes.waitUntil { $0.count == 2 })
        #expect(await changes.items.last?.summary == "value 2.\(brightness.iid)=20 event")
        #expect(await store.characteristic(on)?.value == .bool(false))
        await store.stop()
    }

    @Test("values are changes only when they differ, in the format's normal form")
    func equalValues() async throws {
        let (lamp, provider, store, changes) = await lampScene()
        let on = try Fixture.address(lamp, .Characteristic.on)
        let brightness = try Fixture.address(lamp, .Characteristic.brightness)
        provider.changeValue(on, to: .bool(false))
        provider.changeValue(on, to: .int(1))
        provider.changeValue(on, to: .bool(true), source: .poll)
        provider.changeValue(brightness, to: .float(0))
        provider.changeValue(brightness, to: .float(40), source: .poll)
        #expect(await changes.waitUntil { $0.count >= 2 })
        #expect(
            await changes.items.map(\.summary) == ["value 2.\(on.iid)=true event", "value 2.\(brightness.iid)=40 poll"])
        #expect(await store.characteristic(on)?.value == .bool(true))
        await store.stop()
    }

    @Test("every event of a stateless characteristic counts, even an equal one; polls do not")
    func statelessEvents() async throws {
        let button = Fixture.button()
        let lamp = Fixture.lamp()
        let provider = InMemoryAccessoryProvider(accessories: [lamp, button])
        let store = await readyStore(provider)
        let changes = Recorder.following(batches: await store.subscribe().changes)
        let press = try Fixture.address(button, .Characteristic.programmableSwitchEvent)
        #expect(await store.characteristic(press)?.value == .int(0))
        provider.changeValue(press, to: .int(0))
        provider.changeValue(press, to: .int(0))
        provider.changeValue(press, to: .int(0), source: .poll)
        provider.changeValue(try Fixture.address(lamp, .Characteristic.on), to: .bool(true))
        #expect(await changes.waitUntil { $0.count >= 3 })
        #expect(
            await changes.items.map(\.summary) == [
                "value 4.\(press.iid)=0 event", "value 4.\(press.iid)=0 event", "value 2.9=true event",
            ])
        await store.stop()
    }

    @Test("reachability is reported on a change only, and unreachable accessories take no writes")
    func reachability() async throws {
        let (lamp, provider, store, changes) = await lampScene()
        provider.setReachable([lamp.id], false)
        provider.setReachable([lamp.id], false)
        #expect(await changes.waitUntil { !$0.isEmpty })
        guard case .reachabilityChanged(let id, false, let reason)? = await changes.items.first else {
            Issue.record("no reachability change")
            return
        }
        #expect(id == lamp.id && reason == "in-memory accessory set unreachable")
        #expect(await !store.isReachable(lamp.id))
        #expect(await store.subscribe().unreachable == [lamp.id: "in-memory accessory set unreachable"])

        let on = try Fixture.address(lamp, .Characteristic.on)
        await #expect(throws: HomeStoreError.unreachable(lamp.id, "in-memory accessory set unreachable")) {
            try await store.write(on, value: .bool(true))
        }
        #expect(provider.writes.isEmpty)

        provider.setReachable([lamp.id], true)
        #expect(await changes.waitUntil { $0.count == 2 })
        #expect(await changes.items.map(\.summary) == ["reachable 2 false", "reachable 2 true"])
        #expect(await store.isReachable(lamp.id))
        #expect(try await store.write(on, value: .bool(true)) == .bool(true))
        await store.stop()
    }

    @Test("accessories added, updated and removed between syncs are reported")
    func liveChanges() async throws {
        let provider = InMemoryAccessoryProvider(accessories: [Fixture.lamp()])
        let store = await readyStore(provider)
        let changes = Recorder.following(batches: await store.subscribe().changes)
        provider.add(Fixture.thermometer())
        var renamed = Fixture.lamp()
        renamed.services[0].characteristics[3].value = .string("Desk Lamp")
        provider.update(renamed)
        provider.remove(aid: 3)
        #expect(await changes.waitUntil { $0.count >= 3 })
        #expect(await changes.items.map(\.summary) == ["added 3", "value 2.5=Desk Lamp sync", "removed 3"])
        #expect(await store.accessory(Fixture.id(2))?.name == "Desk Lamp")
        await store.stop()
    }

    @Test("odd provider input is ignored without a crash")
    func oddInput() async throws {
        let lamp = Fixture.lamp()
        let provider = InMemoryAccessoryProvider(accessories: [lamp, lamp])
        let rival = InMemoryAccessoryProvider(id: "rival", accessories: [Fixture.lamp(name: "Impostor")])
        let store = await readyStore(provider, rival)
        #expect(await store.accessories().count == 1)
        #expect(await store.accessory(lamp.id)?.name == "Lamp")
        let changes = Recorder.following(batches: await store.subscribe().changes)

        let on = try Fixture.address(lamp, .Characteristic.on)
        provider.send(
            .values([
                ValueUpdate(
                    address: CharacteristicAddress(accessory: Fixture.id(99), iid: 1), value: .bool(true),
                    source: .event),
                ValueUpdate(
                    address: CharacteristicAddress(accessory: lamp.id, iid: 999), value: .bool(true), source: .event),
                ValueUpdate(address: on, value: nil, source: .event),
            ]))
        provider.send(.reachability([Fixture.id(99)], reachable: false, reason: nil))
        provider.send(.accessoryRemoved(Fixture.id(99)))
        rival.changeValue(on, to: .bool(true))
        rival.remove(aid: 2)
        var doubled = Fixture.thermometer(aid: 6)
        doubled.services[1].characteristics.append(doubled.services[1].characteristics[0])
        provider.add(doubled)
        provider.changeValue(try Fixture.address(lamp, .Characteristic.brightness), to: .int(5))

        #expect(await changes.waitUntil { $0.count >= 2 })
        #expect(await changes.items.map(\.summary) == ["added 6", "value 2.10=5 event"])
        #expect(await store.characteristic(on)?.value == .bool(false))
        #expect(await store.accessories().map(\.aid) == [2, 6])
        await store.stop()
    }
}
