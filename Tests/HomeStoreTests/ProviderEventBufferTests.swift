import HomeModel
import HomeStore
import SystemSupport
import Testing

/// An accessory flooding events while the store is behind: values that wait are merged per
/// characteristic, other events keep their order (`ProviderEventBuffer`).
@Suite("Home store: a provider's waiting events")
struct ProviderEventBufferTests {
    static func update(_ iid: Int, _ value: Int64) -> ValueUpdate {
        ValueUpdate(
            address: CharacteristicAddress(accessory: Fixture.id(2), iid: iid), value: .int(value), source: .event)
    }

    static func values(_ event: ProviderEvent?) -> [String]? {
        guard case .values(let updates)? = event else { return nil }
        return updates.map { "\($0.address.iid)=\($0.value?.description ?? "nil")" }
    }

    @Test("100,000 waiting values of two characteristics are one event with the newest of each")
    func flood() {
        var buffer = ProviderEventBuffer()
        for n in 0..<100_000 { buffer.append(.values([Self.update(10 + n % 2, Int64(n))])) }
        #expect(Self.values(buffer.popFirst()) == ["10=99998", "11=99999"])
        #expect(buffer.popFirst() == nil)
        #expect(buffer.coalesced == 99_998)
    }

    @Test("values never merge across another event, nor into one already read")
    func order() {
        var buffer = ProviderEventBuffer()
        buffer.append(.values([Self.update(10, 1)]))
        buffer.append(.reachability([Fixture.id(2)], reachable: false, reason: "gone"))
        buffer.append(.values([Self.update(10, 2)]))
        buffer.append(.values([Self.update(11, 3), Self.update(10, 4)]))
        #expect(Self.values(buffer.popFirst()) == ["10=1"])
        guard case .reachability? = buffer.popFirst() else {
            Issue.record("the reachability event kept its place")
            return
        }
        #expect(Self.values(buffer.popFirst()) == ["10=4", "11=3"])
        buffer.append(.values([Self.update(10, 5)]))
        #expect(Self.values(buffer.popFirst()) == ["10=5"])
    }

    @Test("through a HandOffQueue, a reader that keeps up gets every value")
    func keepingUp() async {
        let queue = HandOffQueue(ProviderEventBuffer())
        var events = queue.stream.makeAsyncIterator()
        for n in 0..<100 {
            queue.push(.values([Self.update(10, Int64(n))]))
            #expect(Self.values(await events.next()) == ["10=\(n)"])
        }
        queue.finish()
        #expect(await events.next() == nil)
    }
}
