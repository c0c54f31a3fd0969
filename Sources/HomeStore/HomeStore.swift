public import HomeModel
public import Logging

/// The one home store (docs/DESIGN.md lesson 5): every accessory of every provider, their values and
/// reachability, readiness, change streams, and the routing of reads and writes to the owning provider.
///
/// Readiness (lesson 1): until every provider added before `start()` has finished its first sync
/// (`.synced` or `.syncFailed`), nothing is streamed and every read, write and identify fails with
/// `.notReady`. Writes (lesson 3) are validated, then awaited and serialised per accessory; the store
/// publishes the confirmed value only after the provider accepted it.
///
/// `hap2mqtt run` makes one and hands it to every part; tests make their own. A stopped store cannot be
/// started again.
public actor HomeStore {
    struct ProviderSlot {
        var provider: any AccessoryProvider
        var events: ProviderEventQueue
        /// Counts replacements, so that events still queued from a replaced provider are not taken for
        /// its successor's.
        var generation = 0
        /// Removed while running: its accessories are gone and its events are ignored.
        var removed = false
    }

    let logger: Logger
    /// Runs the store's jobs, and those of the actors that share its executor (`StoreExecutor.swift`).
    let executor = StoreExecutor()
    /// The configuration in use (`configure(_:)` replaces it).
    public private(set) var configuration: HomeStoreConfiguration
    var providers: [ProviderSlot] = []
    /// Where the store is in its life: not started, running, or stopped for good.
    var phase = Phase.notStarted
    /// Whether the first sync is complete, and what it waits for (`FirstSync.swift`).
    var firstSync = FirstSync()
    var entries: [AccessoryID: StoredAccessory] = [:]
    var subscribers = SubscriberList()
    /// When the changes go out (`ChangeBatcher.swift`).
    var batcher = ChangeBatcher()
    var writeQueues: [AccessoryID: WriteQueue] = [:]
    /// The drain tasks' numbers and the writers waiting for settlements (`UnsettledWrites.swift`).
    var writeBook = WriteBook()
    /// When the task that fails writes past their time-out runs (`WriteWatchdog.swift`).
    var watchdog = WriteWatchdog()
    /// Accessories a provider reported unreachable before they arrived, with the provider and the reason.
    var earlyUnreachable: [AccessoryID: (provider: Int, reason: String)] = [:]
    /// Reads, writes and events per provider slot (`ProviderStatistics.swift`).
    var counts: [Int: ProviderCounts] = [:]
    /// Names and rooms saved through the bridge API, over the configuration's (`HomeStore+Options.swift`).
    var optionOverrides: [AccessoryID: AccessoryOverride] = [:]

    /// `start()` was called (the store may have stopped since).
    var started: Bool { phase != .notStarted }
    /// `stop()` was called.
    var stopped: Bool { phase == .stopped }

    /// The store's own executor: a job that finds the store idle runs on the thread that enqueued it.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// A store that has no providers yet and is not started, logging through `logger` (its caller's,
    /// labelled `homestore` in the program).
    public init(configuration: HomeStoreConfiguration = .init(), logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Replaces the configuration. Accessories whose name, room or home change are re-placed and
    /// reported as `.accessoryUpdated`.
    public func configure(_ configuration: HomeStoreConfiguration) {
        self.configuration = configuration
        placeAgain(entries.keys.sorted())
    }

    /// Places the accessories `ids` again after their overrides changed; each one whose name, room or
    /// home changed is reported as `.accessoryUpdated`.
    func placeAgain(_ ids: [AccessoryID]) {
        for id in ids {
            guard let entry = entries[id] else { continue }
            let placed = place(entry.placement, id: id)
            guard placed != StoredAccessory.Placement(accessory: entry.accessory) else { continue }
            let old = entry.accessory
            entries[id]?.place(configuredName: placed.configuredName, room: placed.room, home: placed.home)
            if let new = entries[id]?.accessory { emit(.accessoryUpdated(old: old, new: new)) }
        }
    }

    /// The configured homes.
    public var homes: [Home] { configuration.homes }

    /// Adds a provider. If the store has started, the provider starts at once and its accessories arrive
    /// as `.accessoryAdded` when it syncs; it does not hold back readiness.
    public func add(_ provider: any AccessoryProvider) async {
        guard !stopped else {
            logger.warning("provider added after the store stopped; ignored", ["provider": provider.id])
            return
        }
        let index = providers.count
        providers.append(ProviderSlot(provider: provider, events: provider.events))
        if started {
            launch(index)
            await provider.start()
        } else {
            firstSync.awaiting.insert(index)
            if firstSync.isComplete {
                firstSync.isComplete = false
                subscribers.awaitInitial()
            }
        }
    }

    /// The accessory servers whose accessories are unknown: their provider's first sync failed (the server
    /// could not be reached and no usable cached list was left) and none has worked since. Their
    /// accessories are missing from the store, not gone, so what an earlier run published of them must
    /// stay (docs/DESIGN.md "Availability and recovery").
    public var serversWithoutAccessoryList: Set<String> { firstSync.unlistedServers }

    /// The ids of the providers in use (not removed), in the order they were added.
    public var providerIDs: [String] { providers.filter { !$0.removed }.map(\.provider.id) }

    /// Removes the provider with `id` while the store runs (its pairing was deleted): it is stopped, and
    /// each of its accessories is removed (`.accessoryRemoved`, so every topic it had is cleared); writes
    /// still queued for them fail. Returns false when no provider has that id.
    @discardableResult
    public func removeProvider(id: String) async -> Bool {
        guard let index = providers.firstIndex(where: { !$0.removed && $0.provider.id == id }) else { return false }
        providers[index].removed = true
        if let server = providers[index].provider.serverID { firstSync.unlistedServers.remove(server) }
        providers[index].generation += 1
        providers[index].events.detach()
        let provider = providers[index].provider
        for accessoryID in entries.filter({ $0.value.provider == index }).keys.sorted() {
            guard let entry = entries.removeValue(forKey: accessoryID) else { continue }
            emit(.accessoryRemoved(entry.accessory))
            failWaitingWrites(of: accessoryID, .failed("the accessory's pairing was removed"))
        }
        earlyUnreachable = earlyUnreachable.filter { $0.value.provider != index }
        finishFirstSync(index)
        flush()
        await provider.stop()
        return true
    }

    /// Puts `replacement` in the place of the provider with `id` (its pairing was made again, or its
    /// address changed): the old one stops, the new one starts, and its first sync is reconciled with the
    /// accessories the old one had, which keep their topics. Returns false when no provider has that id.
    @discardableResult
    public func replaceProvider(id: String, with replacement: any AccessoryProvider) async -> Bool {
        guard !stopped, let index = providers.firstIndex(where: { !$0.removed && $0.provider.id == id }) else {
            return false
        }
        let old = providers[index].provider
        providers[index].events.detach()
        providers[index].provider = replacement
        providers[index].events = replacement.events
        providers[index].generation += 1
        if started { launch(index) }
        await old.stop()
        if started { await replacement.start() }
        return true
    }

    /// Starts every provider and consumes its events. Returns once every provider has started; the first
    /// syncs finish later (`waitUntilReady()`).
    public func start() async {
        guard phase == .notStarted else { return }
        phase = .running
        let count = providers.count
        for index in 0..<count where !providers[index].removed { launch(index) }
        for index in 0..<count where !providers[index].removed { await providers[index].provider.start() }
        updateReadiness()
    }

    /// Stops every provider, fails the writes still waiting, and finishes every subscriber's stream.
    public func stop() async {
        guard !stopped else { return }
        phase = .stopped
        for slot in providers { await slot.provider.stop() }
        for slot in providers { slot.events.detach() }
        flush()
        subscribers.finishAll()
        failWaitingWrites(.failed("the home store has stopped"))
        let waiters = firstSync.waiters
        firstSync.waiters = []
        for waiter in waiters { waiter.resume() }
    }

    /// Whether every provider added before `start()` has finished its first sync.
    public var isReady: Bool { firstSync.isComplete }

    /// Returns when the store is ready (at once when it is, or has no providers), or when it stops.
    public func waitUntilReady() async {
        guard !firstSync.isComplete, !stopped else { return }
        await withCheckedContinuation { firstSync.waiters.append($0) }
    }

    /// Every accessory, sorted by id.
    public func accessories() -> [Accessory] { entries.values.map(\.accessory).sorted { $0.id < $1.id } }

    /// The accessory with this id.
    public func accessory(_ id: AccessoryID) -> Accessory? { entries[id]?.accessory }

    /// One characteristic with its current value, without copying its accessory.
    public func characteristic(_ address: CharacteristicAddress) -> Characteristic? {
        entries[address.accessory]?.characteristic(address.iid)
    }

    /// Whether the accessory is known and reachable.
    public func isReachable(_ id: AccessoryID) -> Bool { entries[id]?.reachable ?? false }

    /// The current accessories and a stream of every later change, taken at one instant so that no change
    /// is lost or seen twice. The stream finishes when the store stops or the subscriber stops iterating.
    public func subscribe() -> HomeSubscription { subscribe(deliver: nil) }

    /// Like `subscribe()`, but each batch goes to `deliver`, called synchronously on the store's executor
    /// the moment the store hands the batch out, with no task hand-off in between. Meant for an actor
    /// that shares the store's executor (SE-0392: its `unownedExecutor` is the store's), which can then
    /// take the batch with `assumeIsolated`; the Gateway follows the store this way. `deliver` must not
    /// wait and must not call back into the store. The subscription's `changes` stream carries nothing:
    /// it finishes when the store stops, and ending its iteration ends the subscription.
    public func subscribe(delivering deliver: @escaping @Sendable ([HomeChange]) -> Void) -> HomeSubscription {
        subscribe(deliver: deliver)
    }

    private func subscribe(deliver: (@Sendable ([HomeChange]) -> Void)?) -> HomeSubscription {
        flush()
        let (stream, continuation) = AsyncStream<[HomeChange]>.makeStream(bufferingPolicy: .unbounded)
        let snapshot = firstSync.isComplete ? accessories() : []
        var unreachable: [AccessoryID: String] = [:]
        for accessory in snapshot where !(entries[accessory.id]?.reachable ?? true) {
            unreachable[accessory.id] = entries[accessory.id]?.unreachableReason ?? "unreachable"
        }
        guard !stopped else {
            continuation.finish()
            return HomeSubscription(snapshot: snapshot, unreachable: unreachable, changes: stream)
        }
        let id = subscribers.add(continuation, delivering: deliver, needsInitial: !firstSync.isComplete)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeSubscriber(id) }
        }
        return HomeSubscription(snapshot: snapshot, unreachable: unreachable, changes: stream)
    }

    private func removeSubscriber(_ id: Int) { subscribers.remove(id) }

    /// Starts taking a provider's events: a push that finds the store's reader idle starts one task,
    /// which takes every event waiting by the time it runs. `Task.immediate` (SE-0472) runs the task's
    /// first step on the pushing thread, and the store's executor (`StoreExecutor`) runs the store's
    /// part there too when the store is idle: no pool thread is woken between a provider and the
    /// subscribers (hap2mqtt-bench latency).
    private func launch(_ index: Int) {
        let events = providers[index].events
        let generation = providers[index].generation
        events.attach { [weak self] in
            guard let self else { return }
            if #available(macOS 26.0, *) {
                Task.immediate { await self.handleWaiting(events, from: index, generation: generation) }
            } else {
                Task { await self.handleWaiting(events, from: index, generation: generation) }
            }
        }
    }

    /// Handles every event waiting in a provider's queue, until none waits. The events taken together
    /// are one provider event for the batcher: their changes go out in one delivery after a quiet spell.
    private func handleWaiting(_ events: ProviderEventQueue, from index: Int, generation: Int) {
        while providers[index].generation == generation, !providers[index].removed {
            switch events.take() {
            case .events(let taken):
                batcher.beginProviderEvent()
                for event in taken { handle(event, from: index) }
                // After a quiet spell the changes go out now, without waiting for another job on the actor.
                if batcher.endProviderEvent() { flush() }
                // Counted once the changes went out: a lone event's messages do not wait for the statistics.
                countEvents(taken, from: index)
            case .idle:
                return
            case .finished:
                if firstSync.awaiting.contains(index) {
                    logger.warning("provider ended before its first sync", ["provider": providers[index].provider.id])
                    finishFirstSync(index)
                }
                return
            }
        }
    }

    /// Marks a provider's first sync as finished and becomes ready when it was the last.
    func finishFirstSync(_ index: Int) {
        guard firstSync.awaiting.remove(index) != nil else { return }
        updateReadiness()
    }

    private func updateReadiness() {
        guard !firstSync.isComplete, started, firstSync.awaiting.isEmpty else { return }
        firstSync.isComplete = true
        logger.info("home store ready", ["accessories": String(entries.count)])
        let all = accessories()
        var initial = all.map(HomeChange.accessoryAdded)
        for accessory in all where !(entries[accessory.id]?.reachable ?? true) {
            initial.append(
                .reachabilityChanged(accessory.id, reachable: false, reason: entries[accessory.id]?.unreachableReason))
        }
        subscribers.sendInitial(initial)
        let waiters = firstSync.waiters
        firstSync.waiters = []
        for waiter in waiters { waiter.resume() }
    }

    /// Queues a change for the subscribers; the batcher says when it goes out. Nothing is streamed
    /// before the store is ready.
    func emit(_ change: HomeChange) {
        guard firstSync.isComplete, !subscribers.isEmpty else { return }
        switch batcher.add(change, now: .now) {
        case .gather: break
        case .deliverNow: flush()
        case .deliverAfterThisJob: Task { self.scheduledFlush() }
        case .deliver(let due):
            Task {
                try? await Task.sleep(until: due)
                self.scheduledFlush()
            }
        }
    }

    private func scheduledFlush() {
        batcher.scheduledDeliveryIsDue()
        flush()
    }

    /// Delivers the pending changes as one batch. Called, besides the batcher's schedule, before a write's
    /// or a read's callers are answered, so that a subscriber has the new value before the answer.
    func flush() {
        guard let batch = batcher.take(now: .now) else { return }
        subscribers.send(batch)
    }

    /// The saved options' name and room, then the configuration's name, room and home, over what the
    /// provider sent; the first home by default.
    func place(_ placement: StoredAccessory.Placement, id: AccessoryID) -> StoredAccessory.Placement {
        let override = configuration.overrides[id]
        let option = optionOverrides[id]
        return StoredAccessory.Placement(
            configuredName: option?.name ?? override?.name ?? placement.configuredName,
            room: option?.room ?? override?.room ?? placement.room,
            home: option?.home ?? override?.home ?? placement.home ?? configuration.homes.first?.name)
    }
}

extension StoredAccessory.Placement {
    init(accessory: Accessory) {
        self.init(configuredName: accessory.configuredName, room: accessory.room, home: accessory.home)
    }
}
