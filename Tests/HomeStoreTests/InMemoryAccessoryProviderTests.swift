import HAP2MQTTTesting
import HomeModel
import HomeStore
import Testing

@Suite("In-memory accessory provider")
struct InMemoryAccessoryProviderTests {
    @Test("built accessories follow the catalog, with sequential iids and valid starting values")
    func builder() throws {
        let lamp = InMemoryAccessoryProvider.accessory(aid: 7, name: "Lamp", services: [.Service.lightbulb])
        #expect(lamp.id == AccessoryID(serverID: "00:00:00:00:00:01", aid: 7))
        #expect(lamp.name == "Lamp" && lamp.manufacturer == "hap2mqtt tests" && lamp.serialNumber == "SN-7")
        #expect(lamp.firmwareRevision == "1.0.0" && lamp.model == "Model")
        #expect(lamp.services.map(\.type) == [.Service.accessoryInformation, .Service.lightbulb])
        #expect(lamp.services.map(\.isPrimary) == [false, true])
        let iids = lamp.services.flatMap { [$0.iid] + $0.characteristics.map(\.iid) }
        #expect(iids == Array(1...iids.count))

        let bulb = lamp.services[1]
        #expect(bulb.characteristics.first?.type == .Characteristic.on)
        for type in [
            HAPType.Characteristic.brightness, .Characteristic.hue, .Characteristic.saturation,
            .Characteristic.colorTemperature,
        ] {
            #expect(bulb.characteristic(ofType: type) != nil, "no \(type)")
        }
        #expect(bulb.characteristic(ofType: .Characteristic.name) == nil)
        #expect(bulb.characteristics.allSatisfy { $0.format != .tlv8 })
        #expect(bulb.characteristic(ofType: .Characteristic.colorTemperature)?.value == .int(140))
        #expect(bulb.characteristic(ofType: .Characteristic.on)?.value == .bool(false))
        #expect(lamp.informationService?.characteristic(ofType: .Characteristic.identify)?.value == nil)

        // Every starting value passes the characteristic's own rules.
        for c in lamp.allCharacteristics {
            guard let value = c.value else { continue }
            var writable = c
            writable.permissions.insert(.pairedWrite)
            #expect(throws: Never.self) {
                try writable.valueToWrite(for: .value(value), name: HAPCatalog.characteristicSlug(c.type))
            }
        }

        let bare = InMemoryAccessoryProvider.accessory(
            aid: 2, name: "Bare", services: [.Service.lightbulb], optional: false)
        #expect(bare.services[1].characteristics.map(\.type) == [.Characteristic.on])
        let lock = InMemoryAccessoryProvider.accessory(aid: 3, name: "Lock", services: [.Service.lockMechanism])
        #expect(lock.services[1].characteristics.map(\.value) == [.int(0), .int(0)])
    }

    @Test("start syncs at once, or waits for completeSync without autoSync")
    func sync() async throws {
        let lamp = Fixture.lamp()
        let automatic = InMemoryAccessoryProvider(accessories: [lamp])
        let automaticEvents = Recorder.following(elements: automatic.events.stream)
        await automatic.start()
        #expect(await automaticEvents.waitUntil { !$0.isEmpty })

        let manual = InMemoryAccessoryProvider(accessories: [lamp], autoSync: false)
        let manualEvents = Recorder.following(elements: manual.events.stream)
        await manual.start()
        manual.setReachable([lamp.id], false)
        #expect(await manualEvents.waitUntil { $0.count == 1 })
        manual.completeSync()
        #expect(await manualEvents.waitUntil { $0.count == 2 })
        let events = await manualEvents.items
        guard case .reachability = events[0], case .synced(let accessories) = events[1] else {
            Issue.record("unexpected events \(events)")
            return
        }
        #expect(accessories == [lamp])
        await manual.stop()
        await automatic.stop()
        #expect(await manualEvents.waitUntilFinished())
    }

    @Test("writes follow the scripted behaviour and are recorded")
    func writes() async throws {
        let lamp = Fixture.lamp()
        let provider = InMemoryAccessoryProvider(accessories: [lamp])
        let on = try Fixture.address(lamp, .Characteristic.on)
        let brightness = try Fixture.address(lamp, .Characteristic.brightness)
        let missing = CharacteristicAddress(accessory: lamp.id, iid: 999)

        let first = await provider.write([
            CharacteristicWrite(address: on, value: .bool(true), wantsResponse: true),
            CharacteristicWrite(address: missing, value: .bool(true)),
        ])
        #expect(first[on] == .success(.bool(true)))
        #expect(first[missing] == .failure(.unknown("characteristic \(missing)")))
        #expect(provider.value(at: on) == .bool(true))

        provider.setWriteBehavior(.fail(.resourceBusy), for: brightness)
        #expect(
            await provider.write([CharacteristicWrite(address: brightness, value: .int(5))])[brightness]
                == .failure(.status(.resourceBusy)))
        #expect(provider.value(at: brightness) == .int(0))

        provider.setWriteBehavior(.delay(.milliseconds(20)), for: brightness)
        #expect(
            await provider.write([CharacteristicWrite(address: brightness, value: .int(5))])[brightness]
                == .success(nil))
        #expect(provider.value(at: brightness) == .int(5))

        provider.setWriteBehavior(.hang)
        let hanging = Task { await provider.write([CharacteristicWrite(address: on, value: .bool(false))]) }
        #expect(await eventually { provider.writes.count == 4 })
        hanging.cancel()
        #expect(await hanging.value[on] == .failure(.timedOut))
        #expect(provider.value(at: on) == .bool(true))
        #expect(provider.writes.map(\.count) == [2, 1, 1, 1])
        #expect(provider.peakConcurrentWrites(for: lamp.id) == 1)
    }

    @Test("held writes wait for the release and count as in flight meanwhile")
    func held() async throws {
        let lamp = Fixture.lamp()
        let other = Fixture.lamp(aid: 5)
        let provider = InMemoryAccessoryProvider(accessories: [lamp, other])
        provider.setWriteBehavior(.hold)
        let on = try Fixture.address(lamp, .Characteristic.on)
        let otherOn = try Fixture.address(other, .Characteristic.on)
        let a = Task { await provider.write([CharacteristicWrite(address: on, value: .bool(true))]) }
        let b = Task { await provider.write([CharacteristicWrite(address: on, value: .bool(false))]) }
        let c = Task { await provider.write([CharacteristicWrite(address: otherOn, value: .bool(true))]) }
        #expect(await eventually { provider.writes.count == 3 })
        #expect(provider.peakConcurrentWrites(for: lamp.id) == 2)
        #expect(provider.peakConcurrentWrites == 3)
        provider.setWriteBehavior(.fail(.resourceBusy), for: otherOn)
        provider.releaseHeldWrites()
        #expect(await a.value[on] == .success(nil))
        #expect(await b.value[on] == .success(nil))
        #expect(await c.value[otherOn] == .failure(.status(.resourceBusy)))
    }

    @Test("value, accessory and reachability changes are reported as provider events")
    func events() async throws {
        let lamp = Fixture.lamp()
        let provider = InMemoryAccessoryProvider(accessories: [lamp])
        let recorder = Recorder.following(elements: provider.events.stream)
        let on = try Fixture.address(lamp, .Characteristic.on)
        provider.changeValue(on, to: .bool(true))
        provider.changeValue(on, to: .bool(false), source: .poll)
        provider.add(Fixture.thermometer())
        provider.update(Fixture.lamp(name: "Renamed"))
        provider.remove(aid: 3)
        provider.setReachable([lamp.id], false)
        provider.resync()
        #expect(await recorder.waitUntil { $0.count == 7 })
        let kinds = await recorder.items.map { event -> String in
            switch event {
            case .values(let updates):
                return "values \(updates.map { "\($0.value?.description ?? "nil")/\($0.source.rawValue)" })"
            case .accessoryAdded(let a): return "added \(a.aid)"
            case .accessoryUpdated(let a): return "updated \(a.name)"
            case .accessoryRemoved(let id): return "removed \(id.aid)"
            case .reachability(let ids, let reachable, _): return "reachability \(ids.map(\.aid)) \(reachable)"
            case .synced(let accessories): return "synced \(accessories.map(\.aid))"
            case .syncFailed(let reason): return "failed \(reason)"
            case .writesSettled(let readBacks): return "settled \(readBacks.map(\.address.iid))"
            }
        }
        #expect(
            kinds == [
                #"values ["true/event"]"#, #"values ["false/poll"]"#, "added 3", "updated Renamed", "removed 3",
                "reachability [2] false", "synced [2]",
            ])
        #expect(provider.accessories.map(\.name) == ["Renamed"])
    }

    @Test("reads return the held values or the scripted failure; identify is recorded")
    func readsAndIdentify() async throws {
        let lamp = Fixture.lamp()
        let provider = InMemoryAccessoryProvider(accessories: [lamp])
        let on = try Fixture.address(lamp, .Characteristic.on)
        let hue = try Fixture.address(lamp, .Characteristic.hue)
        provider.setReadFailure(.status(.resourceBusy), for: hue)
        let results = await provider.read([on, hue])
        #expect(results[on] == .success(.bool(false)))
        #expect(results[hue] == .failure(.status(.resourceBusy)))
        provider.setReachable([lamp.id], false)
        #expect(await provider.read([on])[on] == .failure(.unreachable("in-memory accessory set unreachable")))

        try await provider.identify(lamp.id)
        provider.setIdentifyFailure(.timedOut)
        await #expect(throws: AccessoryError.timedOut) { try await provider.identify(lamp.id) }
        #expect(provider.identified == [lamp.id, lamp.id])
        #expect(provider.reads.count == 2)
    }
}
