import HomeModel
import HomeStore
import SystemSupport

/// Connecting, syncing and reconnecting (docs/DESIGN.md "Availability and recovery").
extension HAPAccessoryProvider {
    /// How one connection attempt ended.
    enum Attempt {
        /// Connected and synced; the session runs on this client.
        case connected(HAPClient)
        /// It failed; try again later.
        case failed(String)
        /// The accessory refused this controller for good: stop trying.
        case rejected(String)
        /// This controller's identity cannot be loaded: wait until it can.
        case identityUnusable(PairingStoreError)
    }

    /// Connects, syncs and watches the connection; after a drop or a failed attempt waits the back-off
    /// delay and tries again, until `stop()` or a rejection. `ProviderConnectionStateMachine` decides each
    /// step; this loop runs it and hands the machine what the step ended in.
    func run() async {
        var next = await perform(
            machine.handle(.start(unusable: context.unreadableReason, at: context.clock.now)))
        while let event = next { next = await perform(machine.handle(event)) }
    }

    /// Runs `actions` in order. The step among them (the last, `Action.isStep`) is awaited, and what it
    /// ended in is returned: the run loop's next event. nil when there is no step (or it found the
    /// provider stopped).
    @discardableResult
    func perform(_ actions: [ProviderConnectionStateMachine.Action]) async -> ProviderConnectionStateMachine.Event? {
        var next: ProviderConnectionStateMachine.Event?
        for action in actions {
            switch action {
            case .connect(let pause): next = await attempt(after: pause)
            case .watch: next = await runSession()
            case .backOff(let delay):
                logger.debug(
                    "reconnecting in \(CharacteristicValue.format((delay.inSeconds * 100).rounded() / 100)) s")
                let probe = machine.probesLink ? probeLink() : nil
                let woken = await context.wakeup.wait(upTo: delay)
                probe?.cancel()
                next = .backOffEnded(woken: woken, at: context.clock.now)
            case .awaitAnnouncementElsewhere: next = await waitForAnnouncementElsewhere()
            case .awaitIdentity: next = await waitForIdentity()
            case .wake: context.wakeup.signal()
            case .followAnnouncement: announcementsChanged()
            case .resumeWaiters(let connected): reconnectEnded(with: connected ? client : nil)
            case .startGraceTimer(let generation, let delay):
                let clock = context.clock
                Task { [weak self] in
                    try? await clock.sleep(for: delay)
                    await self?.graceExpired(generation)
                }
            case .reportUnreachable(let ids, let reason): emit(.reachability(ids, reachable: false, reason: reason))
            case .reportAllUnreachable(let reason):
                if let ids = index?.ids, !ids.isEmpty { emit(.reachability(ids, reachable: false, reason: reason)) }
            case .reportFromCache(let reason): reportFirstSyncFromCache(reason)
            case .reportRejected(let reason): reportRejected(reason)
            case .logLost(let reason):
                // An unpair makes the accessory close this session: expected, and the provider is stopped next.
                if controller.isRemoved(pairing.accessoryPairingID) {
                    logger.info("the connection to \(displayName) closed: its pairing was removed")
                } else {
                    logger.warning("lost the connection to \(displayName): \(reason); reconnecting")
                }
            case .logFailure(let attempt, let reason):
                if attempt == 1 {
                    logger.warning("cannot connect to \(displayName): \(reason); retrying with back-off")
                } else {
                    logger.info("still cannot connect to \(displayName) (attempt \(attempt)): \(reason)")
                }
            case .logAnnouncedReturn: announcedReturn()
            case .logCommandWake: logger.info("a command for \(displayName) ends the back-off; reconnecting now")
            case .logLinkBack: logger.info("\(displayName) answers at \(address) again; reconnecting now")
            case .logAnnouncedElsewhere:
                logger.info("\(displayName) is announced as paired at another address; trying pair-verify there")
            case .learnIdleLimit(let quiet): learn(.idleClose(quiet: quiet))
            case .shutDown: await shutDown()
            }
        }
        return next
    }

    /// The grace timer `generation` ran out: the held offline report goes out, unless a session came.
    private func graceExpired(_ generation: UInt64) async {
        await perform(machine.handle(.graceExpired(generation: generation)))
    }

    /// One attempt, after `pause`, and how it ended.
    private func attempt(after pause: Duration) async -> ProviderConnectionStateMachine.Event? {
        if pause > .zero { try? await context.clock.sleep(for: pause) }
        guard !stopped else { return nil }
        context.wakeup.clear()
        let outcome = await connectAndSync()
        let reached = link.attemptReached
        link.attemptReached = false
        switch outcome {
        case .connected: return .attemptSucceeded(at: context.clock.now)
        case .failed(let reason): return .attemptFailed(reason, reached: reached, at: context.clock.now)
        case .rejected(let reason): return .rejected(reason)
        case .identityUnusable(let problem):
            guard !stopped else { return nil }
            await controller.reportIdentityProblem(problem)
            return .identityUnusable(problem.description)
        }
    }

    /// During a back-off after an attempt that could not open a connection: a TCP connect to the stored
    /// address every `probeInterval` (closed at once, nothing sent); the first that opens tells the machine
    /// the link is back, which ends the back-off. Cancelled when the wait ends.
    private func probeLink() -> Task<Void, Never> {
        let (endpoint, clock) = (address, context.clock)
        return Task { [weak self] in
            while !Task.isCancelled {
                try? await clock.sleep(for: ProviderConnectionStateMachine.probeInterval)
                guard !Task.isCancelled else { return }
                if let probe = try? await TCPConnection.connect(
                    host: endpoint.host, port: endpoint.port, timeout: ProviderConnectionStateMachine.probeInterval)
                {
                    probe.close()
                    guard !Task.isCancelled else { return }
                    await self?.linkAnswered()
                    return
                }
            }
        }
    }

    private func linkAnswered() async { await perform(machine.handle(.linkAnswered)) }

    /// Runs the live session until its connection closes, and says why it ended.
    private func runSession() async -> ProviderConnectionStateMachine.Event? {
        guard let client else { return nil }
        context.wakeup.clear()
        await readBackUnconfirmedWrites(on: client)
        let reason = await watch(client)
        let quiet = await client.connection.quietBeforeClose
        link.client = nil
        link.endpoint = nil
        guard !stopped else { return nil }
        bridged.forgetAll()
        return .sessionEnded(reason.description, accessories: index?.ids ?? [], quiet: quiet, at: context.clock.now)
    }

    /// One attempt: pair-verify (at the announced addresses, then the stored one), `/accessories`, read
    /// every value, subscribe, then report `.synced` and reachability. Nothing is reported unless all of it
    /// worked.
    func connectAndSync() async -> Attempt {
        let client: HAPClient
        let endpoint: HAPEndpoint
        switch await verifiedConnection() {
        case .verified(let verified, let at):
            client = verified
            endpoint = at
        case .failed(let reason): return .failed(reason)
        case .rejected(let reason): return .rejected(reason)
        case .identityUnusable(let problem): return .identityUnusable(problem)
        }
        guard !stopped else {
            await client.connection.close()
            return .failed("stopped")
        }
        if endpoint != address { follow(to: endpoint) }
        link.endpoint = endpoint
        let numbers = (announcement?.configurationNumber, announcement?.stateNumber)
        link.syncing = client
        defer { link.syncing = nil }
        do {
            let (accessories, synced, values) = try await syncAccessories(client)
            guard !stopped else {
                await client.connection.close()
                return .failed("stopped")
            }
            following.syncedNumbers = numbers
            install(client, synced, accessories, readResults: values)
            // An announcement during the sync may have brought a newer c# or s#.
            announcementsChanged()
            return .connected(client)
        } catch {
            await client.connection.close()
            link.endpoint = nil
            return .failed(error.description)
        }
    }

    /// `/accessories`, a read of every value and the event subscriptions on `client`: the accessories
    /// with their values and the index of what to read, poll and keep alive.
    func syncAccessories(_ client: HAPClient) async throws(HAPConnectionError)
        -> (accessories: [Accessory], index: AccessoryIndex, values: [HAPCharacteristicID: HAPCharacteristicResult])
    {
        var accessories = try await fetchAccessories(client)
        var synced = AccessoryIndex(accessories)
        let values = try await readInBatches(synced.readable, on: client)
        synced.apply(values, to: &accessories)
        let subscriptions = try await client.subscribe(synced.evented)
        // A characteristic that advertises events but refuses the subscription is polled instead.
        let refused = synced.evented.filter { subscriptions[$0]?.status.isSuccess != true }
        if !refused.isEmpty {
            logger.debug("events refused for \(refused.map(\.description).joined(separator: ",")); polled instead")
            synced.polled += refused
        }
        applyProfile(to: &synced, values: values)
        return (accessories, synced, values)
    }

    /// `GET /accessories`, cached, without the excluded accessories. The body and the list go when it
    /// returns, so that the values read next change the only copy of the accessories in place.
    /// - Throws: `.invalidResponse` for a list without aid 1, the accessory server itself
    ///   (docs/hap-notes.md §4.1), which every accessory server lists: such a list (`[]` from a server
    ///   that is starting or broken) would remove every accessory and its topics, so it is refused before
    ///   it is cached, and the attempt fails as for any unusable answer.
    private func fetchAccessories(_ client: HAPClient) async throws(HAPConnectionError) -> [Accessory] {
        let (list, body) = try await client.accessoriesWithBody()
        guard list.accessories.contains(where: { $0.aid == 1 }) else {
            throw .invalidResponse(
                .unexpectedBody("no accessory with aid 1 (the accessory server itself) in the list"),
                request: "GET /accessories")
        }
        reportListProblems(list.problems)
        do {
            try context.cache.save(body)
        } catch {
            logger.warning("cannot cache the accessory list: \(error)")
        }
        return list.accessories.filter { !settings.excludedAIDs.contains($0.aid) }
    }

    /// Logs what the reader skipped or adjusted in the accessory list, each problem once while it stays
    /// (every reconnect fetches the list again): a skipped accessory, service or characteristic at warning,
    /// since it is missing from MQTT; an adjusted one (an unknown format read from the value, a bound
    /// ignored) at info.
    private func reportListProblems(_ problems: [HAPModelProblem]) {
        var logged = logLimits.reportedListProblems
        for problem in problems where logged.insert(problem.description).inserted {
            let line = "the accessory list of \(displayName): \(problem)"
            if problem.action == .skipped { logger.warning("\(line)") } else { logger.info("\(line)") }
        }
        logLimits.reportedListProblems = Set(problems.map(\.description))
    }

    /// Makes `client` the live session and reports the sync: accessories whose every read answered
    /// `-70402` unreachable (reported before the sync, so that they never show as online), the accessories,
    /// then the others reachable.
    private func install(
        _ client: HAPClient, _ synced: AccessoryIndex, _ accessories: [Accessory],
        readResults: [HAPCharacteristicID: HAPCharacteristicResult]
    ) {
        link.client = client
        self.index = synced
        bridged.forgetAll()
        let unreachable = synced.unreachableAIDs(in: readResults)
        bridged.markUnreachable(unreachable)
        let offline = synced.ids.filter { unreachable.contains($0.aid) }
        if !offline.isEmpty { emit(.reachability(offline, reachable: false, reason: Self.bridgedUnreachableReason)) }
        emit(.synced(accessories))
        let online = synced.ids.filter { !unreachable.contains($0.aid) }
        if !online.isEmpty { emit(.reachability(online, reachable: true, reason: nil)) }
        logger.info(
            "connected to \(displayName) at \(link.endpoint ?? address): \(accessories.count) accessories, "
                + "\(synced.evented.count) characteristics with events, \(synced.polled.count) polled")
        for id in offline {
            logger.warning(
                "accessory \(id) is unreachable behind its bridge (HAP status -70402)", ["accessory": id.description])
        }
    }

    /// After a rejection: waits for an announcement of the paired accessory, as paired, at an address
    /// other than the stored one (`announced(_:)` signals it), and says so, to try once more; nil at
    /// `stop()`; and never without DNS-SD. The stored address refused this controller, but that
    /// proves little when the answer came before the accessory proved who it is: an accessory with no
    /// pairing at all answers pair-verify M1 with Authentication, and that may be another accessory that
    /// took the address (docs/hap-notes.md §7.10).
    private func waitForAnnouncementElsewhere() async -> ProviderConnectionStateMachine.Event? {
        while !stopped, !Task.isCancelled {
            if await context.wakeup.wait(upTo: .seconds(3600)) {
                guard !stopped else { return nil }
                return .announcedElsewhere(at: context.clock.now)
            }
        }
        return nil
    }

    /// How often the identity is tried again while it cannot be loaded: as often as the running gateway
    /// reads the pairing files, so that a restored `controller.json` is taken up as fast as a new pairing.
    static let identityPollInterval = Duration.seconds(2)

    /// Tries to load the identity every `identityPollInterval` until it loads (then: connect now); nil at
    /// `stop()`. The controller logged the problem once for all its providers.
    private func waitForIdentity() async -> ProviderConnectionStateMachine.Event? {
        while !stopped, !Task.isCancelled {
            try? await context.clock.sleep(for: Self.identityPollInterval)
            guard !stopped, !Task.isCancelled else { return nil }
            if await controller.identityLoads() { return .identityLoaded(at: context.clock.now) }
        }
        return nil
    }

    /// The accessory refused this controller: say what to do (the machine marks everything unreachable
    /// and stops trying).
    private func reportRejected(_ reason: String) {
        let file = PairingStore.fileName(forAccessory: pairing.accessoryPairingID)
        if (try? controller.store.directory.read(file)) == .some(nil) {
            // hap2mqtt unpair removed it on the accessory and then here; the running gateway's pairing
            // watcher removes this provider in a moment. Not an error to alarm anyone with.
            logger.notice("\(displayName) (\(pairing.accessoryPairingID)) was unpaired; its accessories go away")
        } else {
            logError(reason)
        }
    }

    private func logError(_ reason: String) {
        logger.error(
            "\(displayName) (\(pairing.accessoryPairingID)) no longer accepts this controller: \(reason) "
                + "(reset, or removed by another controller). hap2mqtt stopped connecting to it"
                + (discovery != nil ? " unless it is announced as paired at another address. " : ". ")
                + "Pair again with hap2mqtt pair \(pairCommandTarget)\(settings.commandOptions) "
                + "(the running gateway takes the new pairing up), or remove it with hap2mqtt unpair \"\(displayName)\" --force\(settings.commandOptions)"
        )
    }

    /// The first sync when the accessory cannot be reached: the cached accessories, unreachable, or
    /// `.syncFailed` without a cache.
    func reportFirstSyncFromCache(_ reason: String) {
        let cached: [Accessory]?
        do {
            cached = try context.cache.load()
        } catch {
            logger.warning("ignored the cached accessory list: \(error)")
            cached = nil
        }
        guard let cached else {
            emit(.syncFailed(reason: "\(displayName): \(reason)"))
            return
        }
        let kept = cached.filter { !settings.excludedAIDs.contains($0.aid) }
        index = AccessoryIndex(kept)
        logger.info("\(displayName) is unreachable; its \(kept.count) cached accessories are shown offline")
        if !kept.isEmpty { emit(.reachability(kept.map(\.id), reachable: false, reason: reason)) }
        emit(.synced(kept))
    }

    /// Why a bridged accessory is unreachable when it answers `-70402`.
    static var bridgedUnreachableReason: String { BridgedReachability.reason }
}
