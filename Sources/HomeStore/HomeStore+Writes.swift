public import HomeModel
import SystemSupport

/// Writes (docs/DESIGN.md "Writes"): checked and validated here, then awaited and serialised per accessory;
/// rapid writes to one characteristic collapse to the last value; the confirmed value is published only
/// after the provider accepted it.
extension HomeStore {
    /// The outcome of one write: the confirmed value, or why it failed.
    public typealias WriteResult = Result<CharacteristicValue, HomeStoreError>

    /// Gets a queued write's outcome: called once, on the store's executor, when the accessory answered,
    /// the write timed out or the store stopped. An actor that shares the store's executor (the Gateway)
    /// takes it with `assumeIsolated`.
    public typealias WriteCompletion = @Sendable (WriteResult) -> Void

    /// Gets a multi-write's outcomes, one per address; called once, like `WriteCompletion`.
    public typealias BatchWriteCompletion = @Sendable ([CharacteristicAddress: WriteResult]) -> Void

    /// Writes one value and returns the value the accessory confirmed (its write response, else the
    /// written value in the format's normal form).
    ///
    /// While another write to the accessory is in flight, the write waits; a later write to the same
    /// characteristic that arrives while this one still waits replaces its value, and both callers get
    /// the outcome of the one write sent.
    /// - Throws: `.notReady` before the first sync; `.unknownAccessory`, `.unknownCharacteristic`;
    ///   `.unreachable`; `.notWritable` without `pw`; `.invalidValue` when `validate` refuses the value
    ///   (nothing is sent then); `.status` when the accessory refused; `.timedOut` after `writeTimeout`;
    ///   `.failed` otherwise.
    public func write(_ address: CharacteristicAddress, value: CharacteristicValue) async throws(HomeStoreError)
        -> CharacteristicValue
    {
        let waiter = WriteQueue.SingleWaiter(dropped: .failure(.failed("the write was dropped")))
        enqueue(try checkedWrite(address, value), waiter: waiter)
        return try await outcome(of: waiter).get()
    }

    /// Parses, checks and queues a command's write in one step, so that commands that arrive in order
    /// take their places in the accessory's queue in order, without a second trip to the store.
    ///
    /// `parse` turns the characteristic as the store holds it (with its current value) into the value to
    /// write, or throws (wrong type, out of range, read-only); it runs on the store's executor before
    /// anything is queued.
    /// - Returns: the outcome when it is known before the call returns (`.unknownAccessory` and
    ///   `.unknownCharacteristic`, then `.invalidValue` with the error `parse` threw, then the errors of
    ///   `write(_:value:)`'s checks); otherwise nil, and `completion` gets the outcome.
    public func enqueueWrite(
        _ address: CharacteristicAddress, parsing parse: @Sendable (Characteristic) throws(ValueError) -> CharacteristicValue,
        completion: @escaping WriteCompletion
    ) -> WriteResult? {
        let write: CharacteristicWrite
        do throws(HomeStoreError) {
            guard let entry = entries[address.accessory] else { throw .unknownAccessory(address.accessory) }
            guard let characteristic = entry.characteristic(address.iid) else { throw .unknownCharacteristic(address) }
            let value: CharacteristicValue
            do { value = try parse(characteristic) } catch { throw .invalidValue(error) }
            write = try checkedWrite(address, value)
        } catch {
            return .failure(error)
        }
        let waiter = WriteQueue.SingleWaiter(dropped: .failure(.failed("the write was dropped")))
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

    /// Writes several values, one provider request per accessory (the accessory's place in its write queue
    /// is kept). Values that fail the checks are not sent and get their error; when an address appears
    /// more than once, the last value counts.
    public func write(_ writes: [(CharacteristicAddress, CharacteristicValue)]) async
        -> [CharacteristicAddress: WriteResult]
    {
        await outcome(of: enqueue(writes))
    }

    /// Like `write(_:)` for several values, but the writes take their places in the queues before it
    /// returns.
    /// - Returns: every outcome when all are known before the call returns (every value failed the
    ///   checks); otherwise nil, and `completion` gets them.
    public func enqueueWrite(
        _ writes: [(CharacteristicAddress, CharacteristicValue)], completion: @escaping BatchWriteCompletion
    ) -> [CharacteristicAddress: WriteResult]? {
        enqueue(writes).handOver(to: completion)
    }

    private func enqueue(_ writes: [(CharacteristicAddress, CharacteristicValue)]) -> WriteQueue.BatchWaiter {
        var failed: [CharacteristicAddress: WriteResult] = [:]
        var last: [CharacteristicAddress: Int] = [:]
        for (index, (address, _)) in writes.enumerated() { last[address] = index }
        var groups: [AccessoryID: [CharacteristicWrite]] = [:]
        for (index, (address, value)) in writes.enumerated() where last[address] == index {
            do {
                groups[address.accessory, default: []].append(try checkedWrite(address, value))
            } catch {
                failed[address] = .failure(error)
            }
        }
        let all = BatchOutcome(failed, parts: groups.count, dropped: .init())
        for (id, batch) in groups {
            let dropped = Dictionary(batch.map { ($0.address, WriteResult.failure(.failed("the write was dropped"))) }, uniquingKeysWith: { _, new in new })
            writeQueues[id, default: WriteQueue()].enqueue(batch: batch, waiter: WriteQueue.BatchWaiter(dropped: dropped, deliver: all.add))
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

    /// The checks a write passes before it is queued, and the request it becomes.
    private func checkedWrite(_ address: CharacteristicAddress, _ value: CharacteristicValue) throws(HomeStoreError)
        -> CharacteristicWrite
    {
        let (_, characteristic) = try usableCharacteristic(address)
        guard characteristic.isWritable else { throw .notWritable(address) }
        let normal: CharacteristicValue
        do {
            normal = try characteristic.validate(value, name: HAPCatalog.characteristicSlug(characteristic.type))
        } catch {
            throw .invalidValue(error)
        }
        return CharacteristicWrite(
            address: address, value: normal, timed: characteristic.permissions.contains(.timedWrite),
            wantsResponse: characteristic.permissions.contains(.writeResponse))
    }

    /// The accessory and characteristic at `address`, when the store is ready and the accessory reachable.
    func usableCharacteristic(_ address: CharacteristicAddress) throws(HomeStoreError) -> (StoredAccessory, Characteristic) {
        let entry = try usableAccessory(address.accessory)
        guard let characteristic = entry.characteristic(address.iid) else { throw .unknownCharacteristic(address) }
        return (entry, characteristic)
    }

    /// The accessory `id`, when the store is ready and the accessory reachable.
    func usableAccessory(_ id: AccessoryID) throws(HomeStoreError) -> StoredAccessory {
        guard !stopped else { throw .failed("the home store has stopped") }
        guard ready else { throw .notReady }
        guard let entry = entries[id] else { throw .unknownAccessory(id) }
        guard entry.reachable else { throw .unreachable(id, entry.unreachableReason ?? "unreachable") }
        return entry
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
