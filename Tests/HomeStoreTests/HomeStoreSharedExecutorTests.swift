import HAP2MQTTTesting
import HomeModel
import HomeStore
import Logging
import Testing

/// A subscriber that runs on the store's executor (SE-0392), as the Gateway does: it takes batches and
/// write outcomes with `assumeIsolated`, which traps unless the store calls it on its own executor.
actor Follower {
    let store: HomeStore
    private(set) var batches: [[HomeChange]] = []
    private(set) var outcomes: [HomeStore.WriteResult] = []
    /// Batches and outcomes in the order they arrived: `batch <summaries>`, `outcome ok <value>`.
    private(set) var arrivals: [String] = []
    private(set) var subscription: HomeSubscription?

    nonisolated var unownedExecutor: UnownedSerialExecutor { store.unownedExecutor }

    init(store: HomeStore) {
        self.store = store
    }

    func follow() async {
        subscription = await store.subscribe(delivering: { [weak self] batch in
            self?.assumeIsolated { follower in
                follower.batches.append(batch)
                follower.arrivals.append("batch " + batch.map(\.summary).joined(separator: ", "))
            }
        })
    }

    /// Queues a command's write; the outcome lands in `outcomes`, from the call or the completion.
    func command(_ address: CharacteristicAddress, _ value: CharacteristicValue) async {
        let outcome = await store.enqueueWrite(
            WriteCommand(address, .value(value)),
            completion: { [weak self] outcome in
                self?.assumeIsolated { $0.record(outcome) }
            })
        if let outcome { record(outcome) }
    }

    private func record(_ outcome: HomeStore.WriteResult) {
        outcomes.append(outcome)
        switch outcome {
        case .success(let value): arrivals.append("outcome ok \(value)")
        case .failure(let error): arrivals.append("outcome error \(error)")
        }
    }

    var summaries: [String] { batches.flatMap { $0.map(\.summary) } }
}

@Suite("Home store: subscribers on the store's executor")
struct HomeStoreSharedExecutorTests {
    @Test("batches reach a delivering subscriber on the store's executor, in order, each once")
    func deliveredInOrder() async throws {
        let (lamp, provider, store, changes) = await lampScene()
        let follower = Follower(store: store)
        await follower.follow()
        #expect(await follower.subscription?.snapshot.map(\.id) == [lamp.id])
        let brightness = try Fixture.address(lamp, .Characteristic.brightness)
        for value in 1...30 { provider.changeValue(brightness, to: .int(Int64(value))) }
        #expect(await changes.waitUntil { $0.count == 30 })
        #expect(await eventually { await follower.summaries.count == 30 })
        #expect(await follower.summaries == (1...30).map { "value 2.\(brightness.iid)=\($0) event" })
        #expect(await follower.summaries == changes.items.map(\.summary))
        await store.stop()
    }

    @Test("a delivering subscriber made before the store is ready gets every accessory when it is")
    func initialBatch() async throws {
        let provider = InMemoryAccessoryProvider(accessories: [Fixture.lamp(), Fixture.thermometer()], autoSync: false)
        let store = HomeStore(logger: Logger(label: "homestore"))
        await store.add(provider)
        await store.start()
        let follower = Follower(store: store)
        await follower.follow()
        #expect(await follower.subscription?.snapshot.isEmpty == true)
        try await Task.sleep(for: .milliseconds(50))
        #expect(await follower.batches.isEmpty)
        provider.completeSync()
        #expect(await eventually { await follower.summaries == ["added 2", "added 3"] })
        await store.stop()
    }

    @Test("its subscription's stream carries nothing and finishes when the store stops")
    func streamFinishes() async throws {
        let (lamp, provider, store, _) = await lampScene()
        let follower = Follower(store: store)
        await follower.follow()
        let stream = try #require(await follower.subscription?.changes)
        let ended = Task {
            var count = 0
            for await _ in stream { count += 1 }
            return count
        }
        provider.changeValue(try Fixture.address(lamp, .Characteristic.on), to: .bool(true))
        #expect(await eventually { await follower.summaries.count == 1 })
        await store.stop()
        #expect(await ended.value == 0)
    }

    @Test("write outcomes reach a command's completion on the store's executor, at once or later")
    func completionsOnExecutor() async throws {
        let (lamp, provider, store, _) = await lampScene()
        let on = try Fixture.address(lamp, .Characteristic.on)
        let brightness = try Fixture.address(lamp, .Characteristic.brightness)
        let follower = Follower(store: store)
        provider.setWriteBehavior(.delay(.milliseconds(50)))
        await follower.command(on, .bool(true))
        await follower.command(brightness, .int(7))
        await follower.command(brightness, .int(900))
        #expect(await eventually { await follower.outcomes.count == 3 })
        let outcomes = await follower.outcomes
        // The refused value is answered by the call itself, before the two queued writes finish.
        #expect(outcomes.first.map { if case .failure(.invalidValue) = $0 { true } else { false } } == true)
        #expect(Array(outcomes.dropFirst()) == [.success(.bool(true)), .success(.int(7))])
        await store.stop()
    }

    @Test("a confirmed value reaches the subscriber once, in a batch delivered before the writer's outcome")
    func valueBeforeOutcome() async throws {
        let (lamp, provider, store, _) = await lampScene()
        let brightness = try Fixture.address(lamp, .Characteristic.brightness)
        let follower = Follower(store: store)
        await follower.follow()
        // Answered within the call, and answered later: the batch comes first either way.
        await follower.command(brightness, .int(30))
        provider.setWriteBehavior(.delay(.milliseconds(30)))
        await follower.command(brightness, .int(40))
        #expect(await eventually { await follower.outcomes.count == 2 })
        #expect(
            await follower.arrivals == [
                "batch value 2.\(brightness.iid)=30 write", "outcome ok 30",
                "batch value 2.\(brightness.iid)=40 write", "outcome ok 40",
            ])
        // A write that confirms the value the store holds changes nothing: no batch, only the outcome.
        await follower.command(brightness, .int(40))
        #expect(await eventually { await follower.outcomes.count == 3 })
        #expect(await follower.arrivals.count == 5)
        await store.stop()
    }
}
