public import HomeModel
import SystemSupport

/// Writes (docs/DESIGN.md "Writes"): checked here, once, then awaited and serialised per accessory; rapid
/// writes to one characteristic collapse to the last value. The confirmed value reaches subscribers
/// through the change stream, before the writer gets its outcome.
extension HomeStore {
    /// The outcome of one write: the confirmed value, or why it failed.
    public typealias WriteResult = Result<CharacteristicValue, HomeStoreError>

    /// Gets a queued write's outcome: called once, on the store's executor, when the accessory answered,
    /// the write timed out or the store stopped. An actor that shares the store's executor (the Gateway)
    /// takes it with `assumeIsolated`. A confirmed value was delivered to the subscribers just before.
    public typealias WriteCompletion = @Sendable (WriteResult) -> Void

    /// Gets a multi-write's outcomes, one per address; called once, like `WriteCompletion`.
    public typealias BatchWriteCompletion = @Sendable ([CharacteristicAddress: WriteResult]) -> Void

    /// Writes one value and returns the value the accessory confirmed (its write response, else the
    /// written value in the format's normal form).
    ///
    /// While another write to the accessory is in flight, the write waits; a later write to the same
    /// characteristic that arrives while this one still waits replaces its value, and both callers get
    /// the outcome of the one write sent.
    /// - Throws: the errors of `check(_:)`; `.status` when the accessory refused; `.timedOut` after
    ///   `writeTimeout`; `.unreachable` or `.failed` when it could not be sent.
    public func write(_ address: CharacteristicAddress, value: CharacteristicValue) async throws(HomeStoreError)
        -> CharacteristicValue
    {
        let waiter = WriteQueue.SingleWaiter(dropped: .failure(.failed("the write was dropped")))
        enqueue(try checkedWrite(WriteCommand(address, .value(value))), waiter: waiter)
        return try await outcome(of: waiter).get()
    }

    /// Checks and queues a command's write in one step, so that commands that arrive in order take their
    /// places in the accessory's queue in order, without a second trip to the store. Like
    /// `write(_:value:)`, a command that reaches a write still waiting for the same characteristic
    /// replaces that write's value.
    ///
    /// When the outcome is `.unconfirmed` (the write went out and no answer came), `settled` gets the
    /// second answer once the value was read back (`WriteSettlement`); not when a later write to the
    /// characteristic was answered first, nor when the accessory never answers again.
    /// - Returns: the outcome when it is known before the call returns (a failed check, see `check(_:)`;
    ///   or an accessory that answered at once); otherwise nil, and `completion` gets the outcome.
    public func enqueueWrite(
        _ command: WriteCommand, completion: @escaping WriteCompletion, settled: WriteSettlementHandler? = nil
    ) -> WriteResult? {
        let write: CharacteristicWrite
        do { write = try checkedWrite(command) } catch { return .failure(error) }
        let waiter = WriteQueue.SingleWaiter(dropped: .failure(.failed("the write was dropped")), settled: settled)
        enqueue(write, waiter: waiter)
        return waiter.handOver(to: completion)
    }

    private func enqueue(_ write: CharacteristicWrite, waiter: WriteQueue.SingleWaiter) {
        let id = write.address.accessory
        if writeQueues[id, default: WriteQueue()].enqueue(write, waiter: waiter) {
            logger.debug("write collapsed into a waiting one", ["address": write.address.description])
        }
        startDraining(id)
    }

    /// Checks commands without queueing anything: each becomes its value to write
    /// (`Characteristic.valueToWrite(for:name:)`, the only check of the value), or an error. When an
    /// address appears more than once, the last command counts.
    ///
    /// The errors, in this order: `.failed` once the store has stopped; `.notReady` before the first sync;
    /// `.unknownAccessory`, `.unknownCharacteristic`; `.invalidValue` with the `ValueError` (read-only
    /// included); `.unreachable`.
    public func check(_ commands: [WriteCommand]) -> CheckedWrites {
        var failures: [CharacteristicAddress: HomeStoreError] = [:]
        var last: [CharacteristicAddress: Int] = [:]
        for (index, command) in commands.enumerated() { last[command.address] = index }
        var writes: [CharacteristicWrite] = []
        for (index, command) in commands.enumerated() where last[command.address] == index {
            do {
                writes.append(try checkedWrite(command))
            } catch {
                failures[command.address] = error
            }
        }
        return CheckedWrites(writes: writes, failures: failures)
    }

    /// Queues checked writes, one provider request per accessory (each takes its place in the accessory's
    /// write queue).
    /// - Returns: every outcome, with the checks' failures, when all are known before the call returns
    ///   (nothing passed, or the accessories answered at once); otherwise nil, and `completion` gets them.
    ///
    /// `settled` gets a `WriteSettlement` for each write that was `.unconfirmed`, once it was read back
    /// (as for `enqueueWrite(_:completion:settled:)`).
    public func enqueue(
        _ checked: CheckedWrites, completion: @escaping BatchWriteCompletion, settled: WriteSettlementHandler? = nil
    ) -> [CharacteristicAddress: WriteResult]? {
        enqueue(checked, settled: settled).handOver(to: completion)
    }

    /// Queues checked writes to any accessories, one provider request per accessory server (a scene's
    /// recall, a group's command): the writes to several accessories of one server go out together once
    /// every one of those accessories' queues has reached them (`JointWrite`), and the servers are written
    /// at once, each independently of the others.
    /// - Returns: every outcome, with the checks' failures, when all are known before the call returns;
    ///   otherwise nil, and `completion` gets them.
    public func enqueueByServer(_ checked: CheckedWrites, completion: @escaping BatchWriteCompletion)
        -> [CharacteristicAddress: WriteResult]?
    {
        var groups: [Int: [CharacteristicWrite]] = [:]
        for write in checked.writes {
            guard let provider = entries[write.address.accessory]?.provider else { continue }
            groups[provider, default: []].append(write)
        }
        let all = BatchOutcome(checked.failures.mapValues { .failure($0) }, parts: groups.count, dropped: .init())
        for batch in groups.values {
            let dropped = Dictionary(
                batch.map { ($0.address, WriteResult.failure(.failed("the write was dropped"))) },
                uniquingKeysWith: { _, new in new })
            let waiter = WriteQueue.BatchWaiter(dropped: dropped, deliver: all.add)
            let accessories = Set(batch.map(\.address.accessory))
            if accessories.count == 1, let id = accessories.first {
                writeQueues[id, default: WriteQueue()].enqueue(batch: batch, waiter: waiter)
                startDraining(id)
                continue
            }
            let joint = JointWrite(writes: batch, waiter: waiter)
            for id in accessories.sorted() { writeQueues[id, default: WriteQueue()].enqueue(joint: joint) }
            for id in accessories.sorted() { startDraining(id) }
        }
        return all.waiter.handOver(to: completion)
    }

    /// Checks and writes several commands, one provider request per accessory. Commands that fail the
    /// checks are not sent and get their error; the others are written.
    public func write(_ commands: [WriteCommand]) async -> [CharacteristicAddress: WriteResult] {
        await outcome(of: enqueue(check(commands)))
    }

    private func enqueue(_ checked: CheckedWrites, settled: WriteSettlementHandler? = nil) -> WriteQueue.BatchWaiter {
        var groups: [AccessoryID: [CharacteristicWrite]] = [:]
        for write in checked.writes { groups[write.address.accessory, default: []].append(write) }
        let all = BatchOutcome(checked.failures.mapValues { .failure($0) }, parts: groups.count, dropped: .init())
        for (id, batch) in groups {
            let dropped = Dictionary(
                batch.map { ($0.address, WriteResult.failure(.failed("the write was dropped"))) },
                uniquingKeysWith: { _, new in new })
            writeQueues[id, default: WriteQueue()].enqueue(
                batch: batch, waiter: WriteQueue.BatchWaiter(dropped: dropped, settled: settled, deliver: all.add))
            startDraining(id)
        }
        return all.waiter
    }

    /// Waits for a waiter's outcome.
    private func outcome<Outcome: Sendable>(of waiter: WriteWaiter<Outcome>) async -> Outcome {
        await withCheckedContinuation { continuation in
            if let outcome = waiter.handOver(to: { continuation.resume(returning: $0) }) {
                continuation.resume(returning: outcome)
            }
        }
    }

    /// The checks a command passes before its write is queued (see `check(_:)` for their order), and the
    /// request it becomes.
    private func checkedWrite(_ command: WriteCommand) throws(HomeStoreError) -> CharacteristicWrite {
        let address = command.address
        guard !stopped else { throw .failed("the home store has stopped") }
        guard firstSync.isComplete else { throw .notReady }
        guard let entry = entries[address.accessory] else { throw .unknownAccessory(address.accessory) }
        guard let characteristic = entry.characteristic(address.iid) else { throw .unknownCharacteristic(address) }
        let value: CharacteristicValue
        do {
            value = try characteristic.valueToWrite(
                for: command.payload, name: command.name ?? HAPCatalog.characteristicSlug(characteristic.type))
        } catch {
            throw .invalidValue(error)
        }
        guard entry.reachable || providers[entry.provider].provider.connectsOnDemand else {
            countUnsentWrites(1, of: entry)
            throw .unreachable(address.accessory, entry.unreachableReason ?? "unreachable")
        }
        return CharacteristicWrite(
            address: address, value: value, timed: characteristic.permissions.contains(.timedWrite),
            wantsResponse: characteristic.permissions.contains(.writeResponse))
    }

    /// The accessory and characteristic at `address`, when the store is ready and the accessory reachable.
    func usableCharacteristic(_ address: CharacteristicAddress) throws(HomeStoreError) -> (
        StoredAccessory, Characteristic
    ) {
        let entry = try usableAccessory(address.accessory)
        guard let characteristic = entry.characteristic(address.iid) else { throw .unknownCharacteristic(address) }
        return (entry, characteristic)
    }

    /// The accessory `id`, when the store is ready and the accessory reachable (or, `onDemand`, its
    /// provider tries to reach it when asked: `AccessoryProvider.connectsOnDemand`).
    func usableAccessory(_ id: AccessoryID, onDemand: Bool = false) throws(HomeStoreError) -> StoredAccessory {
        guard !stopped else { throw .failed("the home store has stopped") }
        guard firstSync.isComplete else { throw .notReady }
        guard let entry = entries[id] else { throw .unknownAccessory(id) }
        guard entry.reachable || (onDemand && providers[entry.provider].provider.connectsOnDemand) else {
            throw .unreachable(id, entry.unreachableReason ?? "unreachable")
        }
        return entry
    }

    /// Counts writes to `entry` that were not sent because it is unreachable: failed writes of its accessory
    /// server (`bridge/health`), as a user who sent them sees them.
    func countUnsentWrites(_ count: Int, of entry: StoredAccessory) {
        counts[entry.provider, default: ProviderCounts()].writes += count
        counts[entry.provider, default: ProviderCounts()].failedWrites += count
    }

    /// How many callers wait for a write to this accessory that has not been sent yet (collapsed writes
    /// count once per caller); for diagnostics and tests.
    public func waitingWrites(_ id: AccessoryID) -> Int { writeQueues[id]?.waitingCallers ?? 0 }
}

extension HomeStoreError {
    /// The store's error for a provider's `AccessoryError` on a write or identify.
    init(_ error: AccessoryError, accessory: AccessoryID, timeout: Duration) {
        switch error {
        case .status(let status): self = .status(status)
        case .unreachable(let why): self = .unreachable(accessory, why)
        case .timedOut: self = .timedOut(seconds: timeout.inSeconds)
        case .unconfirmed(let why): self = .unconfirmed(why)
        case .notSent(let why): self = .notSent(why)
        case .unknown, .failed: self = .failed(error.description)
        }
    }

    /// The store's error for a provider's `AccessoryError` on a read: a HAP status is the read's refusal.
    init(reading error: AccessoryError, accessory: AccessoryID, timeout: Duration) {
        if case .status(let status) = error {
            self = .readRefused(status)
        } else {
            self.init(error, accessory: accessory, timeout: timeout)
        }
    }
}
