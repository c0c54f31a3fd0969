import HAP2MQTTTesting
import HomeModel
import HomeStore
import Testing

/// `HomeStore.enqueueByServer`: the values for several accessories of one server in one provider request,
/// each server on its own, in their places among the accessories' other writes (docs/DESIGN.md "Writes").
@Suite("Home store: one write request per accessory server")
struct HomeStoreServerWriteTests {
    typealias Outcomes = HAP2MQTTTesting.Recorder<[CharacteristicAddress: HomeStore.WriteResult]>

    /// The brightness of each lamp as a command.
    static func brightness(_ lamps: [Accessory], _ value: Int) throws -> [WriteCommand] {
        try lamps.map { WriteCommand(try Fixture.address($0, .Characteristic.brightness), .value(.int(Int64(value)))) }
    }

    @Test("three lamps of one server and one of another: one request each, one outcome for all, a failed check in it")
    func oneRequestPerServer() async throws {
        let lamps = [Fixture.lamp(aid: 2), Fixture.lamp(aid: 3, name: "Lamp 3"), Fixture.lamp(aid: 4, name: "Lamp 4")]
        let other = InMemoryAccessoryProvider.accessory(
            aid: 2, name: "Far Lamp", serverID: "00:00:00:00:00:02", services: [.Service.lightbulb])
        let near = InMemoryAccessoryProvider(accessories: lamps)
        let far = InMemoryAccessoryProvider(id: "far", serverID: "00:00:00:00:00:02", accessories: [other])
        let store = await readyStore(near, far)
        var commands = try Self.brightness(lamps + [other], 30)
        let badAddress = try Fixture.address(lamps[0], .Characteristic.hue)
        commands.append(WriteCommand(badAddress, .value(.int(400))))
        let checked = await store.check(commands)
        #expect(checked.failures.keys.sorted() == [badAddress])
        let outcomes = Outcomes()
        let outcome = await store.enqueueByServer(checked) { outcomes.append($0) }
        let all = try #require(outcome, "the in-memory provider answers at once")
        #expect(all.count == 5)
        #expect(all.values.filter { (try? $0.get()) == .int(30) }.count == 4)
        #expect(near.writes.count == 1)
        #expect(Set(near.writes.first?.map(\.address.accessory) ?? []) == Set(lamps.map(\.id)))
        #expect(far.writes.map { $0.map(\.address.accessory) } == [[other.id]])
        #expect(outcomes.elements.isEmpty)
        await store.stop()
    }

    @Test(
        "the request waits until it is first in each of its accessories' queues, and later writes to them wait for it"
    )
    func keepsItsPlace() async throws {
        let first = Fixture.lamp(aid: 2)
        let second = Fixture.lamp(aid: 3, name: "Lamp 3")
        let provider = InMemoryAccessoryProvider(accessories: [first, second])
        let store = await readyStore(provider)
        let firstBrightness = try Fixture.address(first, .Characteristic.brightness)
        let secondBrightness = try Fixture.address(second, .Characteristic.brightness)
        provider.setWriteBehavior(.hold)
        let singles = HAP2MQTTTesting.Recorder<HomeStore.WriteResult>()
        #expect(await store.enqueueWrite(WriteCommand(firstBrightness, .value(.int(10)))) { singles.append($0) } == nil)
        #expect(await eventually { provider.writes.count == 1 })
        let joint = Outcomes()
        let checked = await store.check(try Self.brightness([first, second], 50))
        #expect(await store.enqueueByServer(checked) { joint.append($0) } == nil)
        #expect(
            await store.enqueueWrite(WriteCommand(secondBrightness, .value(.int(70)))) { singles.append($0) } == nil)
        // The second lamp is idle, but its part waits for the first lamp's write, and its own next write
        // waits behind that.
        try await Task.sleep(for: .milliseconds(50))
        #expect(provider.writes.count == 1)
        provider.setWriteBehavior(.succeed)
        provider.releaseHeldWrites()
        #expect(await eventually { singles.elements.count == 2 && joint.elements.count == 1 })
        #expect(
            provider.writes.map { $0.map(\.value) } == [[.int(10)], [.int(50), .int(50)], [.int(70)]],
            "\(provider.writes)")
        #expect(joint.elements.first?.values.allSatisfy { (try? $0.get()) == .int(50) } == true)
        #expect(await store.characteristic(firstBrightness)?.value == .int(50))
        #expect(await store.characteristic(secondBrightness)?.value == .int(70))
        #expect(await store.waitingWrites(first.id) == 0)
        #expect(await store.waitingWrites(second.id) == 0)
        await store.stop()
    }
}
