import HAP2MQTTTesting
import HomeModel
import HomeStore
import Testing

/// The store's queueing write API, as the Gateway uses it for commands: check and queue in one call; the
/// outcome returned at once or given to a completion exactly once.
@Suite("Home store: queued writes with completions")
struct HomeStoreQueuedWriteTests {
    /// Every outcome a completion received, tagged with the caller.
    typealias Outcomes = HAP2MQTTTesting.Recorder<(Int, HomeStore.WriteResult)>

    /// A `/set` command's text for the characteristic at `address`, named `test` in errors.
    static func command(_ address: CharacteristicAddress, _ text: String) -> WriteCommand {
        WriteCommand(address, .text(text), name: "test")
    }

    @Test("checks that fail come back from the call itself, and nothing is sent or completed")
    func failuresAtOnce() async throws {
        let (lamp, provider, store, _) = await lampScene()
        let brightness = try Fixture.address(lamp, .Characteristic.brightness)
        let name = try Fixture.address(lamp, .Characteristic.name)
        let outcomes = Outcomes()
        let cases: [(CharacteristicAddress, String, String)] = [
            (CharacteristicAddress(accessory: Fixture.id(42), iid: 9), "1", "no accessory 00:00:00:00:00:01/42"),
            (
                CharacteristicAddress(accessory: lamp.id, iid: 999), "1",
                "no characteristic 999 on accessory 00:00:00:00:00:01/2"
            ),
            (brightness, "bright", "test: 'bright' is not a valid int value"),
            (brightness, "150", "test: 150 is above the maximum 100"),
            (name, "Desk", "test: cannot write 'Desk', the characteristic is read-only"),
        ]
        for (index, (address, text, message)) in cases.enumerated() {
            let outcome = await store.enqueueWrite(Self.command(address, text)) { outcomes.append((index, $0)) }
            guard case .failure(let error)? = outcome else {
                Issue.record("\(address) = \(text) gave \(String(describing: outcome))")
                continue
            }
            #expect(error.description == message)
        }
        try await Task.sleep(for: .milliseconds(50))
        #expect(outcomes.elements.isEmpty)
        #expect(provider.writes.isEmpty)
        await store.stop()
    }

    @Test("a write the accessory answers at once is answered by the call itself, and published")
    func answeredAtOnce() async throws {
        let (lamp, provider, store, changes) = await lampScene()
        let brightness = try Fixture.address(lamp, .Characteristic.brightness)
        let outcomes = Outcomes()
        let outcome = await store.enqueueWrite(Self.command(brightness, " 55 ")) { outcomes.append((0, $0)) }
        #expect(outcome == .success(.int(55)))
        #expect(provider.writes == [[CharacteristicWrite(address: brightness, value: .int(55))]])
        #expect(await store.characteristic(brightness)?.value == .int(55))
        #expect(await changes.waitUntil { $0.map(\.summary) == ["value 2.\(brightness.iid)=55 write"] })
        #expect(await store.waitingWrites(lamp.id) == 0)
        try await Task.sleep(for: .milliseconds(50))
        #expect(outcomes.elements.isEmpty)
        await store.stop()
    }

    @Test("a queued write's completion gets the confirmed value once, after the store published it")
    func completionOnce() async throws {
        let (lamp, provider, store, changes) = await lampScene()
        let brightness = try Fixture.address(lamp, .Characteristic.brightness)
        provider.setWriteBehavior(.hold)
        let outcomes = Outcomes()
        let outcome = await store.enqueueWrite(Self.command(brightness, "40")) { result in
            outcomes.append((0, result))
        }
        #expect(outcome == nil)
        #expect(await eventually { provider.writes.count == 1 })
        #expect(outcomes.elements.isEmpty)
        provider.releaseHeldWrites()
        #expect(await eventually { !outcomes.elements.isEmpty })
        #expect(await changes.waitUntil { $0.map(\.summary) == ["value 2.\(brightness.iid)=40 write"] })
        try await Task.sleep(for: .milliseconds(50))
        #expect(outcomes.elements.map(\.1) == [.success(.int(40))])
        await store.stop()
    }

    @Test("collapsed commands each get one completion; commands are sent in the order they were queued")
    func collapseAndOrder() async throws {
        let (lamp, provider, store, _) = await lampScene()
        let on = try Fixture.address(lamp, .Characteristic.on)
        let brightness = try Fixture.address(lamp, .Characteristic.brightness)
        let hue = try Fixture.address(lamp, .Characteristic.hue)
        provider.setWriteBehavior(.hold)
        let outcomes = Outcomes()
        let commands: [(CharacteristicAddress, String)] = [
            (on, "true"), (brightness, "10"), (hue, "30"), (brightness, "20"), (brightness, "30"), (hue, "40"),
        ]
        for (index, (address, text)) in commands.enumerated() {
            let outcome = await store.enqueueWrite(Self.command(address, text)) { outcomes.append((index, $0)) }
            #expect(outcome == nil)
            if index == 0 { #expect(await eventually { provider.writes.count == 1 }) }
        }
        #expect(await store.waitingWrites(lamp.id) == 5)
        provider.setWriteBehavior(.succeed)
        provider.releaseHeldWrites()
        #expect(await eventually { outcomes.elements.count == commands.count })
        try await Task.sleep(for: .milliseconds(50))
        let byCaller = Dictionary(grouping: outcomes.elements, by: \.0)
        #expect(byCaller.count == commands.count && byCaller.values.allSatisfy { $0.count == 1 })
        #expect(
            byCaller.mapValues { $0[0].1 } == [
                0: .success(.bool(true)), 1: .success(.int(30)), 2: .success(.float(40)), 3: .success(.int(30)),
                4: .success(.int(30)), 5: .success(.float(40)),
            ])
        #expect(provider.writes.map { $0.map(\.address) } == [[on], [brightness], [hue]])
        #expect(provider.writes.map { $0.map(\.value) } == [[.bool(true)], [.int(30)], [.float(40)]])
        await store.stop()
    }

    @Test("writes still waiting when the store stops get one completion each, with the reason")
    func stopAnswersWaiting() async throws {
        let (lamp, provider, store, _) = await lampScene()
        let on = try Fixture.address(lamp, .Characteristic.on)
        let brightness = try Fixture.address(lamp, .Characteristic.brightness)
        provider.setWriteBehavior(.hold)
        let outcomes = Outcomes()
        #expect(await store.enqueueWrite(Self.command(on, "true")) { outcomes.append((0, $0)) } == nil)
        #expect(await eventually { provider.writes.count == 1 })
        #expect(await store.enqueueWrite(Self.command(brightness, "5")) { outcomes.append((1, $0)) } == nil)
        await store.stop()
        #expect(await eventually { outcomes.elements.contains { $0.0 == 1 } })
        #expect(outcomes.elements.filter { $0.0 == 1 }.map(\.1) == [.failure(.failed("the home store has stopped"))])
        provider.releaseHeldWrites()
        #expect(await eventually { outcomes.elements.count == 2 })
        try await Task.sleep(for: .milliseconds(50))
        #expect(outcomes.elements.count == 2)
        #expect(provider.writes.count == 1)
    }
}

@Suite("Home store: the write time-out")
struct HomeStoreWriteTimeoutTests {
    @Test("an answer that comes after the time-out changes nothing in the store")
    func lateAnswer() async throws {
        let (lamp, provider, store, changes) = await lampScene(
            configuration: HomeStoreConfiguration(writeTimeout: .milliseconds(200)))
        let brightness = try Fixture.address(lamp, .Characteristic.brightness)
        let hue = try Fixture.address(lamp, .Characteristic.hue)
        // The in-memory provider finishes a delayed write when its call is cancelled, as an accessory
        // that applied the value late would; the delay itself outlasts any stall of a busy machine.
        provider.setWriteBehavior(.delay(.seconds(3600)), for: brightness)
        #expect(await writeResult(store, brightness, .int(70)) == .failure(.timedOut(seconds: 0.2)))
        #expect(await eventually { provider.value(at: brightness) == .int(70) })
        provider.changeValue(hue, to: .float(5))
        #expect(await changes.waitUntil { !$0.isEmpty })
        try await Task.sleep(for: .milliseconds(50))
        #expect(await changes.items.map(\.summary) == ["value 2.\(hue.iid)=5 event"])
        #expect(await store.characteristic(brightness)?.value == .int(0))
        await store.stop()
    }

    // A watchdog that slept through to the first time-out, a day, would hold the test far past its
    // time limit; no clock is read.
    @Test("a shorter time-out set while writes are being sent applies to the next write", .timeLimit(.minutes(2)))
    func shortenedTimeout() async throws {
        let (lamp, provider, store, _) = await lampScene(
            configuration: HomeStoreConfiguration(writeTimeout: .seconds(24 * 3600)))
        let on = try Fixture.address(lamp, .Characteristic.on)
        #expect(try await store.write(on, value: .bool(true)) == .bool(true))
        await store.configure(HomeStoreConfiguration(writeTimeout: .milliseconds(200)))
        provider.setWriteBehavior(.hang, for: on)
        #expect(await writeResult(store, on, .bool(false)) == .failure(.timedOut(seconds: 0.2)))
        await store.stop()
    }

    @Test(
        "hanging writes to two accessories both time out, the writes queued behind them fail unsent, and each queue goes on"
    )
    func twoAccessories() async throws {
        let lamp = Fixture.lamp()
        let other = Fixture.lamp(aid: 5, name: "Other Lamp")
        let provider = InMemoryAccessoryProvider(accessories: [lamp, other])
        let store = await readyStore(provider, configuration: HomeStoreConfiguration(writeTimeout: .milliseconds(300)))
        let on = try Fixture.address(lamp, .Characteristic.on)
        let otherOn = try Fixture.address(other, .Characteristic.on)
        let otherBrightness = try Fixture.address(other, .Characteristic.brightness)
        provider.setWriteBehavior(.hang, for: on)
        provider.setWriteBehavior(.hang, for: otherOn)
        let first = Task { await writeResult(store, on, .bool(true)) }
        try await Task.sleep(for: .milliseconds(100))
        let second = Task { await writeResult(store, otherOn, .bool(true)) }
        let queued = Task { await writeResult(store, otherBrightness, .int(40)) }
        #expect(await first.value == .failure(.timedOut(seconds: 0.3)))
        #expect(await second.value == .failure(.timedOut(seconds: 0.3)))
        #expect(await queued.value == .failure(.notSent(HomeStore.waitedBehindTimeout)))
        #expect(await store.waitingWrites(other.id) == 0)
        #expect(await writeResult(store, otherBrightness, .int(40)) == .success(.int(40)))
        await store.stop()
    }
}

@Suite("Home store: checking writes before queueing them")
struct HomeStoreCheckedWriteTests {
    @Test("check turns each command into its value or its error and queues nothing")
    func checkOnly() async throws {
        let (lamp, provider, store, changes) = await lampScene()
        let on = try Fixture.address(lamp, .Characteristic.on)
        let brightness = try Fixture.address(lamp, .Characteristic.brightness)
        let name = try Fixture.address(lamp, .Characteristic.name)
        let missing = CharacteristicAddress(accessory: lamp.id, iid: 999)
        let checked = await store.check([
            WriteCommand(on, .text("toggle")), WriteCommand(brightness, .json(.int(700)), name: "brightness"),
            WriteCommand(name, .text("Desk")), WriteCommand(missing, .text("1")),
        ])
        #expect(
            checked.failures.mapValues(\.description) == [
                brightness: "brightness: 700 is above the maximum 100",
                name: "name: cannot write 'Desk', the characteristic is read-only",
                missing: "no characteristic 999 on accessory 00:00:00:00:00:01/2",
            ])
        try await Task.sleep(for: .milliseconds(50))
        #expect(provider.writes.isEmpty)
        #expect(await store.waitingWrites(lamp.id) == 0)
        #expect(await changes.items.isEmpty)
        await store.stop()
    }

    @Test("checked writes go out in one request per accessory, with the checks' failures in the outcome")
    func enqueueChecked() async throws {
        let (lamp, provider, store, _) = await lampScene()
        let on = try Fixture.address(lamp, .Characteristic.on)
        let hue = try Fixture.address(lamp, .Characteristic.hue)
        let name = try Fixture.address(lamp, .Characteristic.name)
        let checked = await store.check([
            WriteCommand(on, .text("on")), WriteCommand(hue, .value(.float(90))), WriteCommand(name, .text("x")),
        ])
        let outcomes = HAP2MQTTTesting.Recorder<[CharacteristicAddress: HomeStore.WriteResult]>()
        let outcome = await store.enqueue(checked) { outcomes.append($0) }
        #expect(outcome?[on] == .success(.bool(true)))
        #expect(outcome?[hue] == .success(.float(90)))
        #expect(
            outcome?[name] == .failure(.invalidValue(ValueError(characteristic: "name", value: "x", rule: .readOnly))))
        #expect(
            provider.writes == [
                [
                    CharacteristicWrite(address: on, value: .bool(true)),
                    CharacteristicWrite(address: hue, value: .float(90)),
                ]
            ])
        #expect(outcomes.elements.isEmpty)
        await store.stop()
    }
}
