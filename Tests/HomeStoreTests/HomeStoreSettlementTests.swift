import HAP2MQTTTesting
import HomeModel
import HomeStore
import Synchronization
import Testing

/// Writes that went out without an answer (`.unconfirmed`) and the read-back that settles them
/// (docs/DESIGN.md "Writes").
@Suite("Home store: settling writes without an answer")
struct HomeStoreSettlementTests {
    /// The outcome and the settlements of one queued write.
    final class Answers: Sendable {
        let outcome = Mutex<HomeStore.WriteResult?>(nil)
        let settlements = Mutex<[WriteSettlement]>([])
    }

    private func enqueue(_ store: HomeStore, _ address: CharacteristicAddress, _ payload: CommandPayload) async
        -> Answers
    {
        let answers = Answers()
        let now = await store.enqueueWrite(
            WriteCommand(address, payload),
            completion: { outcome in answers.outcome.withLock { $0 = outcome } },
            settled: { settlement in answers.settlements.withLock { $0.append(settlement) } })
        if let now { answers.outcome.withLock { $0 = now } }
        return answers
    }

    /// Waits until the store has taken every event the provider sent so far: a value sent after them
    /// (`marker`, at `address`) has arrived.
    private static func eventsTaken(
        _ provider: InMemoryAccessoryProvider, _ store: HomeStore, _ address: CharacteristicAddress, marker: Int64
    ) async {
        provider.send(.values([ValueUpdate(address: address, value: .int(marker), source: .poll)]))
        #expect(await eventually { await store.characteristic(address)?.value == .int(marker) })
    }

    @Test("an unconfirmed write is answered unconfirmed, then settled as applied or not by the read-back")
    func settles() async throws {
        let (lamp, provider, store, _) = await lampScene()
        let brightness = try Fixture.address(lamp, .Characteristic.brightness)
        let on = try Fixture.address(lamp, .Characteristic.on)
        provider.setWriteBehavior(.unanswered)
        let applied = await enqueue(store, brightness, .value(.int(70)))
        let notApplied = await enqueue(store, on, .value(.bool(true)))
        #expect(
            await eventually { applied.outcome.withLock { $0 } != nil && notApplied.outcome.withLock { $0 } != nil })
        #expect(applied.outcome.withLock { $0 } == .failure(.unconfirmed("the in-memory accessory did not answer")))
        #expect(applied.settlements.withLock { $0 }.isEmpty)

        provider.send(
            .writesSettled([
                WriteReadBack(address: brightness, written: .int(70), value: .int(70)),
                WriteReadBack(address: on, written: .bool(true), value: .bool(false)),
            ]))
        #expect(await eventually { applied.settlements.withLock { $0.count } == 1 })
        #expect(await eventually { notApplied.settlements.withLock { $0.count } == 1 })
        #expect(
            applied.settlements.withLock { $0 }
                == [WriteSettlement(address: brightness, written: .int(70), value: .int(70), applied: true)])
        #expect(
            notApplied.settlements.withLock { $0 }
                == [WriteSettlement(address: on, written: .bool(true), value: .bool(false), applied: false)])
        // Each writer is settled once.
        provider.send(.writesSettled([WriteReadBack(address: brightness, written: .int(70), value: .int(70))]))
        await Self.eventsTaken(provider, store, brightness, marker: 71)
        #expect(applied.settlements.withLock { $0.count } == 1)
        await store.stop()
    }

    @Test("a later write to the characteristic that is answered ends the wait: no settlement comes")
    func supersededByAnswer() async throws {
        let (lamp, provider, store, _) = await lampScene()
        let brightness = try Fixture.address(lamp, .Characteristic.brightness)
        provider.setWriteBehavior(.unanswered)
        let first = await enqueue(store, brightness, .value(.int(70)))
        #expect(await eventually { first.outcome.withLock { $0 } != nil })
        provider.setWriteBehavior(.succeed)
        #expect(try await store.write(brightness, value: .int(20)) == .int(20))
        provider.send(.writesSettled([WriteReadBack(address: brightness, written: .int(70), value: .int(20))]))
        await Self.eventsTaken(provider, store, brightness, marker: 21)
        #expect(first.settlements.withLock { $0 }.isEmpty)
        await store.stop()
    }
}
