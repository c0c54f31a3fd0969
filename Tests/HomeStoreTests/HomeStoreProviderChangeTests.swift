import HAP2MQTTTesting
import HomeModel
import HomeStore
import Testing

/// Pairings added, removed or made again while the gateway runs become providers added, removed or
/// replaced in the running store.
@Suite("Home store: providers added, removed and replaced while it runs")
struct HomeStoreProviderChangeTests {
    @Test("a removed provider's accessories are removed, its later events ignored, its queued writes failed")
    func remove() async throws {
        let kept = InMemoryAccessoryProvider(
            id: "kept", serverID: "00:00:00:00:00:02",
            accessories: [
                InMemoryAccessoryProvider.accessory(
                    aid: 2, name: "Hall", serverID: "00:00:00:00:00:02", services: [.Service.lightbulb])
            ])
        let gone = InMemoryAccessoryProvider(id: "gone", accessories: [Fixture.lamp(), Fixture.thermometer()])
        let store = await readyStore(kept, gone)
        let changes = Recorder.following(batches: await store.subscribe().changes)
        let on = try Fixture.address(Fixture.lamp(), .Characteristic.on)
        // One write held at the accessory and one queued behind it when the provider goes: waited for,
        // not slept for, so a busy machine cannot let the first finish before the second is queued.
        gone.setWriteBehavior(.hold)
        let slow = Task { await writeResult(store, on, .bool(true)) }
        #expect(await eventually { gone.writes.count == 1 })
        let queued = Task { await writeResult(store, on, .bool(false)) }
        #expect(await eventually { await store.waitingWrites(on.accessory) == 1 })

        #expect(await store.removeProvider(id: "gone"))
        #expect(await changes.waitUntil { $0.count >= 2 })
        #expect(await changes.items.map(\.summary) == ["removed 2", "removed 3"])
        #expect(await store.accessories().map(\.id.serverID) == ["00:00:00:00:00:02"])
        #expect(await store.providerIDs == ["kept"])
        if case .failure(let error) = await queued.value {
            #expect("\(error)".contains("pairing was removed"), "\(error)")
        } else {
            Issue.record("the queued write should fail")
        }
        gone.releaseHeldWrites()
        _ = await slow.value

        gone.changeValue(on, to: .bool(true))
        try await Task.sleep(for: .milliseconds(200))
        #expect(await changes.items.count == 2, "nothing from the removed provider")
        #expect(await store.removeProvider(id: "gone") == false)
        await store.stop()
    }

    @Test("a replacement takes over the accessories without removing them, and its values flow")
    func replace() async throws {
        let old = InMemoryAccessoryProvider(id: "hap:1", accessories: [Fixture.lamp()])
        let store = await readyStore(old)
        let changes = Recorder.following(batches: await store.subscribe().changes)
        var lamp = Fixture.lamp()
        let on = try Fixture.address(lamp, .Characteristic.on)
        lamp.services[1].characteristics[0].value = .bool(true)
        let new = InMemoryAccessoryProvider(id: "hap:1", accessories: [lamp])

        #expect(await store.replaceProvider(id: "hap:1", with: new))
        #expect(await changes.waitUntil { !$0.isEmpty })
        #expect(
            await changes.items.map(\.summary) == ["value 2.\(on.iid)=true sync"], "reconciled, not removed and added")
        old.changeValue(on, to: .bool(false))
        new.changeValue(on, to: .bool(false))
        #expect(await changes.waitUntil { $0.count >= 2 })
        try await Task.sleep(for: .milliseconds(200))
        #expect(await changes.items.map(\.summary) == ["value 2.\(on.iid)=true sync", "value 2.\(on.iid)=false event"])
        #expect(try await store.write(on, value: .bool(true)) == .bool(true))
        #expect(new.writes.count == 1 && old.writes.isEmpty)
        await store.stop()
    }
}
