import HomeModel
import SystemSupport

/// Sending queued writes (docs/DESIGN.md "Writes"): one drain task per accessory with writes waiting sends
/// them one request at a time; one watchdog task per store fails a write that takes longer than
/// `writeTimeout`, cancels its provider call and lets the queue go on, so a hanging accessory never
/// blocks later writes. A write that the accessory answers at once is done within the call that queued
/// it.
extension HomeStore {
    /// Starts a drain task for the accessory's queue unless one runs. The task starts at once, within the
    /// caller's step (SE-0472 `Task.immediate`): when the provider answers without waiting, the write is
    /// done and its callers answered before this returns; otherwise the caller goes on when the provider
    /// first waits.
    func startDraining(_ id: AccessoryID) {
        guard let queue = writeQueues[id], queue.drain == nil else { return }
        writeBook.nextDrain += 1
        let drain = writeBook.nextDrain
        writeQueues[id]?.drain = drain
        let task: Task<Void, Never>
        if #available(macOS 26.0, *) {
            task = Task.immediate { await self.drainWrites(id, drain: drain) }
        } else {
            task = Task { await self.drainWrites(id, drain: drain) }
        }
        // Gone already when the drain finished within this call.
        if writeQueues[id]?.drain == drain { writeQueues[id]?.drainTask = task }
    }

    /// Sends an accessory's queued writes one at a time until its queue is empty, or until the watchdog
    /// replaced this drain because its write timed out.
    private func drainWrites(_ id: AccessoryID, drain: Int) async {
        while writeQueues[id]?.drain == drain, let queued = writeQueues[id]?.popFirst() {
            let item = queued.item
            if case .joint(let joint) = item {
                if joint.finished { continue }
                joint.waiting.remove(id)
                guard joint.waiting.isEmpty else {
                    // Parked: the queue stays this drain's, so nothing passes the joint write, until the
                    // queue that reaches it last has sent it (`resumeParked`).
                    joint.parked[id] = drain
                    return
                }
            }
            let timeout = configuration.writeTimeout
            // The time-out counts from when the command came, not from when its turn came: no caller waits
            // longer than the time-out (and the provider's second) for an answer, however many writes were
            // ahead of it.
            let deadline = queued.since + timeout
            guard deadline > .now else {
                item.fail(.notSent(Self.waitedTooLong(timeout)))
                if case .joint(let joint) = item { resumeParked(joint) }
                continue
            }
            // A provider that answers by the deadline itself says whether the write went out; the watchdog
            // only steps in when it does not.
            let keepsDeadline = providerKeepsWriteDeadline(id)
            let watched = keepsDeadline ? deadline + Self.providerAnswerGrace : deadline
            writeQueues[id]?.inFlight = WriteQueue.InFlight(item: item, deadline: watched, timeout: timeout)
            watchWrite(until: watched)
            let answers = await send(item.writes, to: id, timeout: timeout, deadline: deadline)
            // Timed out meanwhile: the callers have their answer and another drain has the queue.
            guard writeQueues[id]?.drain == drain else { return }
            let changedByEvent = writeQueues[id]?.inFlight?.changedByEvent ?? []
            writeQueues[id]?.inFlight = nil
            // Gathered like a provider event's values, so that no delivery is scheduled for after this
            // job (a task per write): the flush below delivers them.
            batcher.beginProviderEvent()
            let outcomes = confirm(answers, changedByEvent: changedByEvent)
            _ = batcher.endProviderEvent()
            // The subscribers have the confirmed values before the writers have their answers.
            flush()
            awaitSettlements(item, outcomes)
            item.resume(returning: outcomes, missing: .failed("the accessory sent no result"))
            if case .joint(let joint) = item { resumeParked(joint) }
        }
        if writeQueues[id]?.drain == drain { writeQueues[id] = nil }
    }

    /// How long a provider that keeps the write deadline (`AccessoryProvider.keepsWriteDeadline`) may
    /// take past it before the watchdog fails the write.
    static let providerAnswerGrace = Duration.seconds(1)

    /// Why the writes queued behind one that timed out were not sent.
    public static let waitedBehindTimeout = "the write before it got no answer in time"

    /// Why a write that waited out its time-out in the queue was not sent.
    static func waitedTooLong(_ timeout: Duration) -> String {
        "its time-out (\(CharacteristicValue.format(timeout.inSeconds)) s) ran out while earlier writes to the accessory waited for an answer"
    }

    /// Whether the provider of accessory `id` answers writes by their deadline.
    private func providerKeepsWriteDeadline(_ id: AccessoryID) -> Bool {
        guard let entry = entries[id] else { return false }
        return providers[entry.provider].provider.keepsWriteDeadline
    }

    /// The writers of writes that failed `.unconfirmed` wait for their settlement; a write the accessory
    /// answered ends the wait of older ones to that characteristic.
    private func awaitSettlements(_ item: WriteQueue.Item, _ outcomes: [CharacteristicAddress: WriteResult]) {
        for write in item.writes {
            switch outcomes[write.address] {
            case .failure(.unconfirmed)?:
                for handler in item.settlementHandlers(for: write.address) {
                    writeBook.unsettled.add(write.address, written: write.value, handler: handler)
                }
            case .success?: _ = writeBook.unsettled.take(write.address)
            default: break
            }
        }
    }

    /// Lets the queues parked on a joint write that was answered or failed go on with their next writes.
    func resumeParked(_ joint: JointWrite) {
        let parked = joint.parked
        joint.parked = [:]
        for (id, drain) in parked where writeQueues[id]?.drain == drain {
            writeQueues[id]?.drain = nil
            writeQueues[id]?.drainTask = nil
            if writeQueues[id]?.isEmpty ?? true {
                writeQueues[id] = nil
            } else {
                startDraining(id)
            }
        }
    }

    /// Settles the writes waiting for `readBack`: applied when the value read back is the one written.
    func settle(_ readBack: WriteReadBack, from provider: Int) {
        let address = readBack.address
        guard owns(address.accessory, provider) else { return }
        let characteristic = entries[address.accessory]?.characteristic(address.iid)
        let normalize = { (value: CharacteristicValue) in characteristic?.normalized(value) ?? value }
        let value = readBack.value.map(normalize)
        for (written, handler) in writeBook.unsettled.take(address) {
            handler(
                WriteSettlement(address: address, written: written, value: value, applied: value == normalize(written)))
        }
    }

    /// One provider request, or the store's reason for not sending it (stopped, unreachable).
    private func send(
        _ writes: [CharacteristicWrite], to id: AccessoryID, timeout: Duration, deadline: ContinuousClock.Instant
    )
        async -> Answers
    {
        let entry: StoredAccessory
        do { entry = try usableAccessory(id, onDemand: true) } catch {
            if case .unreachable = error, let stored = entries[id] { countUnsentWrites(writes.count, of: stored) }
            return Answers(writes: writes, id: id, timeout: timeout, failure: error)
        }
        let answers = await providers[entry.provider].provider.write(writes, deadline: deadline)
        let failed = writes.count(where: { write in
            if case .success? = answers[write.address] { return false }
            return true
        })
        counts[entry.provider, default: ProviderCounts()].writes += writes.count
        counts[entry.provider, default: ProviderCounts()].failedWrites += failed
        return Answers(writes: writes, id: id, timeout: timeout, answers: answers)
    }

    /// The outcome of each write; successful values are stored and published.
    private func confirm(_ answers: Answers, changedByEvent: Set<CharacteristicAddress>) -> [CharacteristicAddress:
        WriteResult]
    {
        var results: [CharacteristicAddress: WriteResult] = [:]
        for write in answers.writes {
            switch answers.answers[write.address] {
            case .success(let response)?:
                results[write.address] = .success(
                    confirm(write, response: response, changedByEvent: changedByEvent.contains(write.address)))
            case .failure(let error)?:
                results[write.address] = .failure(
                    HomeStoreError(error, accessory: answers.id, timeout: answers.timeout))
            case nil:
                results[write.address] = .failure(
                    answers.failure ?? .failed("the accessory sent no result for \(write.address)"))
            }
        }
        return results
    }

    /// Stores the confirmed value of a successful write; it reaches the subscribers if it changed. Without
    /// a write response, the value an event told while the write was in flight stays: the accessory sent
    /// it after it took the write (one that stores 50 when 53 is written, and says so before its answer).
    private func confirm(_ write: CharacteristicWrite, response: CharacteristicValue?, changedByEvent: Bool)
        -> CharacteristicValue
    {
        let address = write.address
        guard let location = entries[address.accessory]?.locations[address.iid],
            let characteristic = entries[address.accessory]?.characteristic(address.iid)
        else { return response ?? write.value }
        if response == nil, changedByEvent, let told = characteristic.value { return told }
        let confirmed = response.map(characteristic.normalized) ?? write.value
        setValue(confirmed, at: address, location, source: .write)
        return confirmed
    }

    /// Fails every write still waiting in a queue (the store stops). Writes in flight get the provider's
    /// answer, or time out.
    func failWaitingWrites(_ error: HomeStoreError) {
        for id in writeQueues.keys { failWaitingWrites(of: id, error) }
        if writeQueues.values.allSatisfy({ $0.inFlight == nil }) { watchdog.stop() }
    }

    /// Fails the writes still waiting in one accessory's queue (its provider was removed).
    func failWaitingWrites(of id: AccessoryID, _ error: HomeStoreError) {
        while let queued = writeQueues[id]?.popFirst() {
            queued.item.fail(error)
            if case .joint(let joint) = queued.item { resumeParked(joint) }
        }
    }

    // MARK: The watchdog

    /// Makes sure the watchdog wakes by `deadline`.
    private func watchWrite(until deadline: ContinuousClock.Instant) {
        guard let generation = watchdog.watch(until: deadline) else { return }
        watchdog.started(Task { await self.runWatchdog(generation) })
    }

    private func runWatchdog(_ generation: Int) async {
        while watchdog.isCurrent(generation), !Task.isCancelled {
            let now = ContinuousClock.now
            if writeQueues.values.contains(where: { $0.inFlight.map { $0.deadline <= now } ?? false }) {
                // An answer that came in time may still wait for the store, behind this job when the
                // machine is busy: let the jobs already waiting run first.
                await Task.yield()
                failOverdueWrites(now)
            }
            guard watchdog.isCurrent(generation),
                let wake = watchdog.nextWake(
                    after: now, inFlight: writeQueues.values.compactMap(\.inFlight?.deadline), lingering: !stopped)
            else { return }
            try? await Task.sleep(until: wake, clock: .continuous)
        }
        if watchdog.isCurrent(generation) { watchdog.ended() }
    }

    /// Fails each write in flight past its deadline, cancels its provider call (which may go on if the
    /// provider ignores cancellation), and hands the rest of its queue to a new drain.
    private func failOverdueWrites(_ now: ContinuousClock.Instant) {
        for (id, queue) in writeQueues {
            guard let inFlight = queue.inFlight, inFlight.deadline <= now else { continue }
            logger.warning("write timed out", ["accessory": id.description])
            queue.drainTask?.cancel()
            writeQueues[id]?.inFlight = nil
            writeQueues[id]?.drain = nil
            writeQueues[id]?.drainTask = nil
            inFlight.item.fail(.timedOut(seconds: inFlight.timeout.inSeconds))
            if case .joint(let joint) = inFlight.item { resumeParked(joint) }
            // The writes queued behind it waited for an accessory that does not answer: they fail now,
            // unsent, rather than each waiting out a time-out of its own.
            failWaitingWrites(of: id, .notSent(Self.waitedBehindTimeout))
            if writeQueues[id]?.isEmpty ?? true {
                writeQueues[id] = nil
            } else {
                startDraining(id)
            }
        }
    }
}

/// A provider's answers to one request, with what is needed to turn them into outcomes.
struct Answers {
    let writes: [CharacteristicWrite]
    let id: AccessoryID
    let timeout: Duration
    var answers: [CharacteristicAddress: Result<CharacteristicValue?, AccessoryError>] = [:]
    /// The store's own reason when the request was not sent.
    var failure: HomeStoreError?

    init(
        writes: [CharacteristicWrite], id: AccessoryID, timeout: Duration,
        answers: [CharacteristicAddress: Result<CharacteristicValue?, AccessoryError>]
    ) {
        self.writes = writes
        self.id = id
        self.timeout = timeout
        self.answers = answers
    }

    init(writes: [CharacteristicWrite], id: AccessoryID, timeout: Duration, failure: HomeStoreError) {
        self.writes = writes
        self.id = id
        self.timeout = timeout
        self.failure = failure
    }
}
