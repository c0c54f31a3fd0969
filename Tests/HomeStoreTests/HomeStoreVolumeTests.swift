import HAP2MQTTTesting
import HomeModel
import HomeStore
import Testing

@Suite("Home store: volume", .timeLimit(.minutes(10)))
struct HomeStoreVolumeTests {
    @Test("50,000 value events, one per provider event, all reach a subscriber in order and in batches")
    func manyEvents() async throws {
        let lamps = (2..<52).map { Fixture.lamp(aid: $0, name: "Lamp \($0)") }
        let provider = InMemoryAccessoryProvider(accessories: lamps)
        let store = await readyStore(provider)
        let subscription = await store.subscribe()
        let addresses = try lamps.map { try Fixture.address($0, .Characteristic.brightness) }
        for round in 1...1000 {
            for address in addresses { provider.changeValue(address, to: .int(Int64(round % 100 + 1))) }
        }
        var received = 0
        var batches = 0
        var lastValue: [CharacteristicAddress: CharacteristicValue] = [:]
        for await batch in subscription.changes {
            batches += 1
            for change in batch {
                guard case .valueChanged(let address, let value?, .event) = change else { continue }
                received += 1
                lastValue[address] = value
            }
            if received == 50_000 { break }
        }
        #expect(received == 50_000)
        #expect(batches < 50_000)
        #expect(Set(lastValue.values) == [.int(1000 % 100 + 1)])
        for address in addresses { #expect(await store.characteristic(address)?.value == .int(1)) }
        await store.stop()
    }
}
