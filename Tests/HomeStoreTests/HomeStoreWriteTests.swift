import HAP2MQTTTesting
import HomeModel
import HomeStore
import Testing

@Suite("Home store: writes")
struct HomeStoreWriteTests {
    @Test("a write is published only after the accessory accepted it, with source write")
    func success() async throws {
        let (lamp, provider, store, changes) = await lampScene()
        let brightness = try Fixture.address(lamp, .Characteristic.brightness)
        provider.setWriteBehavior(.hold)
        let write = Task { try await store.write(brightness, value: .float(50)) }
        #expect(await eventually { provider.writes.count == 1 })
        try await Task.sleep(for: .milliseconds(50))
        #expect(await changes.items.isEmpty)
        #expect(await store.characteristic(brightness)?.value == .int(0))

        provider.releaseHeldWrites()
        #expect(try await write.value == .int(50))
        #expect(provider.writes == [[CharacteristicWrite(address: brightness, value: .int(50))]])
        #expect(await changes.waitUntil { $0.map(\.summary) == ["value 2.\(brightness.iid)=50 write"] })
        #expect(await store.characteristic(brightness)?.value == .int(50))

        // Writing the value it already has is confirmed but is no change.
        provider.setWriteBehavior(.succeed)
        #expect(try await store.write(brightness, value: .int(50)) == .int(50))
        provider.changeValue(brightness, to: .int(60))
        #expect(await changes.waitUntil { $0.count == 2 })
        #expect(await changes.items.last?.summary == "value 2.\(brightness.iid)=60 event")
        await store.stop()
    }

    @Test(
        "an event for the written characteristic while the write is in flight wins over the written value (an accessory that stored 50 when 53 was written)"
    )
    func eventDuringWriteWins() async throws {
        let (lamp, provider, store, changes) = await lampScene()
        let brightness = try Fixture.address(lamp, .Characteristic.brightness)
        provider.setWriteBehavior(.hold)
        let write = Task { try await store.write(brightness, value: .int(53)) }
        #expect(await eventually { provider.writes.count == 1 })
        provider.changeValue(brightness, to: .int(50))
        #expect(await changes.waitUntil { $0.map(\.summary) == ["value 2.\(brightness.iid)=50 event"] })
        provider.releaseHeldWrites()
        #expect(try await write.value == .int(50))
        #expect(await store.characteristic(brightness)?.value == .int(50))
        // A write without an event in between is confirmed with its own value, as always.
        provider.setWriteBehavior(.succeed)
        #expect(try await store.write(brightness, value: .int(60)) == .int(60))
        #expect(await changes.waitUntil { $0.count == 2 })
        #expect(await changes.items.map(\.summary).last == "value 2.\(brightness.iid)=60 write")
        await store.stop()
    }

    @Test("a refused write leaves the value as it was and reports the HAP status")
    func failure() async throws {
        let (lamp, provider, store, changes) = await lampScene()
        let on = try Fixture.address(lamp, .Characteristic.on)
        provider.setWriteBehavior(.fail(.notAllowedInCurrentState), for: on)
        do {
            _ = try await store.write(on, value: .bool(true))
            Issue.record("the write succeeded")
        } catch {
            #expect(error == .status(.notAllowedInCurrentState))
            #expect(error.hapStatus?.rawValue == -70412)
            #expect(
                error.description == "the accessory refused the write: HAP status -70412 (not allowed in current state)"
            )
        }
        #expect(provider.writes.count == 1)
        #expect(await store.characteristic(on)?.value == .bool(false))
        provider.changeValue(try Fixture.address(lamp, .Characteristic.hue), to: .float(10))
        #expect(await changes.waitUntil { !$0.isEmpty })
        #expect(await changes.items.map(\.summary) == ["value 2.11=10 event"])
        await store.stop()
    }

    @Test("a write to an unreachable accessory fails at once and counts as a failed write of its server")
    func unreachable() async throws {
        let (lamp, provider, store, _) = await lampScene()
        let on = try Fixture.address(lamp, .Characteristic.on)
        provider.send(.reachability([lamp.id], reachable: false, reason: "cannot reach it"))
        #expect(await eventually { await !store.isReachable(lamp.id) })
        await #expect(throws: HomeStoreError.unreachable(lamp.id, "cannot reach it")) {
            try await store.write(on, value: .bool(true))
        }
        let results = await store.write([WriteCommand(on, .value(.bool(true)))])
        #expect(results[on] == .failure(.unreachable(lamp.id, "cannot reach it")))
        #expect(provider.writes.isEmpty)
        let statistics = try #require(await store.providerStatistics().first)
        #expect(statistics.writes == 2 && statistics.failedWrites == 2, "\(statistics)")
        await store.stop()
    }

    @Test(
        "a hanging accessory times out, the write queued behind it fails unsent at that moment, and later writes still go through"
    )
    func timeout() async throws {
        let (lamp, provider, store, _) = await lampScene(
            configuration: HomeStoreConfiguration(writeTimeout: .milliseconds(200)))
        let on = try Fixture.address(lamp, .Characteristic.on)
        let brightness = try Fixture.address(lamp, .Characteristic.brightness)
        provider.setWriteBehavior(.hang, for: on)
        let hanging = Task { await writeResult(store, on, .bool(true)) }
        #expect(await eventually { provider.writes.count == 1 })
        let queued = Task { await writeResult(store, brightness, .int(30)) }
        #expect(await eventually { await store.waitingWrites(lamp.id) == 1 })
        #expect(await hanging.value == .failure(.timedOut(seconds: 0.2)))
        // It waited its whole time-out behind a write that got no answer: answered now, not after a
        // time-out of its own, and never sent.
        #expect(await queued.value == .failure(.notSent(HomeStore.waitedBehindTimeout)))
        #expect(await store.characteristic(on)?.value == .bool(false))
        #expect(await store.characteristic(brightness)?.value == .int(0))

        provider.setWriteBehavior(.succeed, for: on)
        #expect(try await store.write(on, value: .bool(true)) == .bool(true))
        #expect(try await store.write(brightness, value: .int(30)) == .int(30))
        #expect(provider.writes.count == 3)
        await store.stop()
    }

    @Test("20 rapid writes to one characteristic end in the last value, each caller with a result")
    func collapse() async throws {
        let (lamp, provider, store, _) = await lampScene()
        let brightness = try Fixture.address(lamp, .Characteristic.brightness)
        provider.setWriteBehavior(.hold)
        var tasks = [Task { try await store.write(brightness, value: .int(1)) }]
        #expect(await eventually { provider.writes.count == 1 })
        for value in 2...20 {
            tasks.append(Task { try await store.write(brightness, value: .int(Int64(value))) })
            #expect(await eventually { await store.waitingWrites(lamp.id) == value - 1 })
        }
        provider.setWriteBehavior(.succeed)
        provider.releaseHeldWrites()
        var results: [CharacteristicValue] = []
        for task in tasks { results.append(try await task.value) }
        #expect(results == [.int(1)] + Array(repeating: .int(20), count: 19))
        #expect(provider.writes.map { $0.map(\.value) } == [[.int(1)], [.int(20)]])
        #expect(await store.characteristic(brightness)?.value == .int(20))
        #expect(provider.value(at: brightness) == .int(20))
        #expect(await store.waitingWrites(lamp.id) == 0)
        await store.stop()
    }

    @Test("wrong types, out-of-range values and read-only characteristics never reach the accessory")
    func refusedBeforeSending() async throws {
        let (lamp, provider, store, _) = await lampScene()
        let on = try Fixture.address(lamp, .Characteristic.on)
        let brightness = try Fixture.address(lamp, .Characteristic.brightness)
        let hue = try Fixture.address(lamp, .Characteristic.hue)
        let name = try Fixture.address(lamp, .Characteristic.name)
        let cases: [(CharacteristicAddress, CharacteristicValue, String)] = [
            (on, .string("yes"), "on: 'yes' is not a valid bool value"),
            (brightness, .int(150), "brightness: 150 is above the maximum 100"),
            (brightness, .float(50.5), "brightness: '50.5' is not a valid int value"),
            (hue, .float(-1), "hue: -1 is below the minimum 0"),
            (name, .string("Desk"), "name: cannot write 'Desk', the characteristic is read-only"),
            (
                CharacteristicAddress(accessory: lamp.id, iid: 999), .bool(true),
                "no characteristic 999 on accessory 00:00:00:00:00:01/2"
            ),
            (
                CharacteristicAddress(accessory: Fixture.id(42), iid: 9), .bool(true),
                "no accessory 00:00:00:00:00:01/42"
            ),
        ]
        for (address, value, message) in cases {
            do {
                _ = try await store.write(address, value: value)
                Issue.record("\(address) took \(value)")
            } catch {
                #expect(error.description == message)
            }
        }
        let readOnly = HomeStoreError.invalidValue(ValueError(characteristic: "name", value: "Desk", rule: .readOnly))
        await #expect(throws: readOnly) { try await store.write(name, value: .string("Desk")) }
        #expect(readOnly.hapStatus == .readOnlyCharacteristic)
        #expect(provider.writes.isEmpty)
        await store.stop()
    }

    @Test("writes to one accessory never overlap; writes to different accessories may")
    func serialisation() async throws {
        let lamp = Fixture.lamp()
        let other = Fixture.lamp(aid: 5, name: "Other Lamp")
        let provider = InMemoryAccessoryProvider(accessories: [lamp, other])
        let store = await readyStore(provider)
        provider.setWriteBehavior(.hold)
        let writes = [
            (try Fixture.address(lamp, .Characteristic.on), CharacteristicValue.bool(true)),
            (try Fixture.address(lamp, .Characteristic.brightness), .int(10)),
            (try Fixture.address(other, .Characteristic.on), .bool(true)),
        ]
        let tasks = writes.map { address, value in Task { try await store.write(address, value: value) } }
        #expect(await eventually { provider.writes.count == 2 })
        #expect(await eventually { await store.waitingWrites(lamp.id) == 1 })
        #expect(provider.peakConcurrentWrites == 2)
        provider.setWriteBehavior(.succeed)
        provider.releaseHeldWrites()
        for task in tasks { _ = try await task.value }
        #expect(provider.writes.count == 3)
        #expect(provider.peakConcurrentWrites(for: lamp.id) == 1)
        #expect(provider.peakConcurrentWrites(for: other.id) == 1)
        await store.stop()
    }

    @Test("tw characteristics ask for a timed write, wr ones for a write response that becomes the value")
    func timedAndResponse() async throws {
        var lock = InMemoryAccessoryProvider.accessory(aid: 6, name: "Lock", services: [.Service.lockMechanism])
        let target = try Fixture.address(lock, try Fixture.type("1E"))
        lock.services[1].characteristics[1].permissions.insert(.timedWrite)
        var lamp = Fixture.lamp()
        lamp.services[1].characteristics.append(
            try #require(Characteristic.make(iid: 30, type: try Fixture.type("143"), value: .data([]))))
        let provider = InMemoryAccessoryProvider(accessories: [lock, lamp])
        let store = await readyStore(provider)
        #expect(try await store.write(target, value: .int(1)) == .int(1))
        #expect(provider.writes.last == [CharacteristicWrite(address: target, value: .int(1), timed: true)])

        let transition = try Fixture.address(lamp, try Fixture.type("143"))
        #expect(try await store.write(transition, value: .data([1, 2])) == .data([1, 2]))
        #expect(
            provider.writes.last == [
                CharacteristicWrite(address: transition, value: .data([1, 2]), wantsResponse: true)
            ])
        #expect(await store.characteristic(transition)?.value == .data([1, 2]))
        await store.stop()
    }

    @Test("a multi-write sends one request per accessory and answers each address")
    func multiWrite() async throws {
        let lamp = Fixture.lamp()
        let other = Fixture.lamp(aid: 5, name: "Other Lamp")
        let provider = InMemoryAccessoryProvider(accessories: [lamp, other])
        let store = await readyStore(provider)
        let on = try Fixture.address(lamp, .Characteristic.on)
        let brightness = try Fixture.address(lamp, .Characteristic.brightness)
        let name = try Fixture.address(lamp, .Characteristic.name)
        let otherOn = try Fixture.address(other, .Characteristic.on)
        let results = await store.write([
            WriteCommand(on, .value(.bool(true))), WriteCommand(brightness, .text("10")),
            WriteCommand(name, .value(.string("x"))),
            WriteCommand(brightness, .json(.int(50))), WriteCommand(otherOn, .text("on"), name: "other_on"),
        ])
        #expect(results.count == 4)
        #expect(try results[on]?.get() == .bool(true))
        #expect(try results[brightness]?.get() == .int(50))
        #expect(try results[otherOn]?.get() == .bool(true))
        #expect(
            results[name] == .failure(.invalidValue(ValueError(characteristic: "name", value: "x", rule: .readOnly))))
        let requests = provider.writes.sorted { $0.count > $1.count }
        #expect(
            requests == [
                [
                    CharacteristicWrite(address: on, value: .bool(true)),
                    CharacteristicWrite(address: brightness, value: .int(50)),
                ],
                [CharacteristicWrite(address: otherOn, value: .bool(true))],
            ])
        await store.stop()
    }
}
