import HAP2MQTTTesting
import HomeModel
import HomeStore
import Testing

@Suite("Home store: reads and identify")
struct HomeStoreReadTests {
    @Test("a read stores the accessory's value and delivers it, changed or not, before it returns")
    func read() async throws {
        var lamp = Fixture.lamp()
        let provider = InMemoryAccessoryProvider(accessories: [lamp])
        let store = await readyStore(provider)
        let changes = Recorder.following(batches: await store.subscribe().changes)
        let brightness = try Fixture.address(lamp, .Characteristic.brightness)
        lamp.services[1].characteristics[1].value = .int(42)
        provider.replaceAccessories([lamp])

        #expect(try await store.read([brightness])[brightness]?.get() == .int(42))
        #expect(try await store.read([brightness])[brightness]?.get() == .int(42))
        #expect(provider.reads == [[brightness], [brightness]])
        provider.changeValue(brightness, to: .int(43))
        #expect(await changes.waitUntil { $0.count >= 3 })
        // The user asked for the value: the second read delivers it again although it did not change.
        #expect(
            await changes.items.map(\.summary) == ["value 2.10=42 read", "value 2.10=42 read", "value 2.10=43 event"])
        await store.stop()
    }

    @Test("read failures are reported per address as refused reads and leave the value")
    func failures() async throws {
        let (lamp, provider, store, _) = await lampScene()
        let hue = try Fixture.address(lamp, .Characteristic.hue)
        let on = try Fixture.address(lamp, .Characteristic.on)
        let identify = try Fixture.address(lamp, .Characteristic.identify)
        let missing = CharacteristicAddress(accessory: lamp.id, iid: 999)
        provider.setReadFailure(.status(.resourceBusy), for: hue)
        let results = await store.read([hue, on, identify, missing])
        #expect(results[hue] == .failure(.readRefused(.resourceBusy)))
        #expect(try results[on]?.get() == .bool(false))
        #expect(results[identify] == .failure(.readRefused(.writeOnlyCharacteristic)))
        let refusal = try #require(
            results[identify].flatMap { result -> HomeStoreError? in
                if case .failure(let error) = result { return error } else { return nil }
            })
        #expect(
            refusal.description
                == "the accessory refused the read: HAP status -70405 (cannot read a write-only characteristic)")
        #expect(refusal.hapStatus == .writeOnlyCharacteristic)
        #expect(results[missing] == .failure(.unknownCharacteristic(missing)))
        #expect(provider.reads.map { Set($0) } == [[hue, on]])
        #expect(await store.characteristic(hue)?.value == .float(0))
        await store.stop()
    }

    @Test("reads go to each owning provider in one request")
    func grouping() async throws {
        let lamp = Fixture.lamp()
        let remote = InMemoryAccessoryProvider.accessory(
            aid: 1, name: "Remote", serverID: "00:00:00:00:00:02", services: [.Service.switch])
        let first = InMemoryAccessoryProvider(accessories: [lamp, Fixture.thermometer()])
        let second = InMemoryAccessoryProvider(id: "second", serverID: "00:00:00:00:00:02", accessories: [remote])
        let store = await readyStore(first, second)
        let addresses = [
            try Fixture.address(lamp, .Characteristic.on),
            try Fixture.address(Fixture.thermometer(), try Fixture.type("11")),
            try Fixture.address(remote, .Characteristic.on),
        ]
        let results = await store.read(addresses)
        #expect(results.values.allSatisfy { (try? $0.get()) != nil })
        #expect(first.reads.count == 1 && first.reads.first?.count == 2)
        #expect(second.reads == [[addresses[2]]])
        await store.stop()
    }

    @Test("identify reaches the accessory and reports its refusal")
    func identify() async throws {
        let (lamp, provider, store, _) = await lampScene()
        try await store.identify(lamp.id)
        #expect(provider.identified == [lamp.id])
        provider.setIdentifyFailure(.status(.insufficientPrivileges))
        await #expect(throws: HomeStoreError.status(.insufficientPrivileges)) { try await store.identify(lamp.id) }
        await #expect(throws: HomeStoreError.unknownAccessory(Fixture.id(42))) {
            try await store.identify(Fixture.id(42))
        }
        provider.setReachable([lamp.id], false)
        #expect(await eventually { await !store.isReachable(lamp.id) })
        await #expect(throws: HomeStoreError.self) { try await store.identify(lamp.id) }
        #expect(provider.identified.count == 2)
        await store.stop()
    }
}
