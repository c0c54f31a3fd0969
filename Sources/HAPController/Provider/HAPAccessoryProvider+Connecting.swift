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
    /// delay and tries again, until `stop()` or a rejection. An announcement of the accessory ends the
    /// wait early (`announced(_:)`), at most once every `minimumAttemptSpacing`. After a rejection, with
    /// DNS-SD, an announcement of the paired accessory as paired at another address starts one more
    /// attempt (`waitForAnnouncementElsewhere()`).
    func run() async {
        if let unreadableReason {
            disconnectReason = unreadableReason
            reportFirstSyncFromCache(unreadableReason)
            return
        }
        var backoff = settings.backoff
        // The quiet time before the accessory ended the last session, until the attempt right after shows
        // whether it was an idle limit (the accessory answers at once) or the accessory going down (it does
        // not): a crash or restart after a second of quiet is no reason to keep connections alive more
        // often.
        var quietBeforeLoss: Duration?
        while !stopped {
            let attemptStarted = ContinuousClock.now
            wakeup.clear()
            let outcome = await connectAndSync()
            if case .connected = outcome, let quiet = quietBeforeLoss { learnIdleLimit(quiet) }
            quietBeforeLoss = nil
            switch outcome {
            case .connected(let client):
                failuresInARow = 0
                let began = ContinuousClock.now
                wakeup.clear()
                let reason = await watch(client)
                self.client = nil
                connectedEndpoint = nil
                guard !stopped else { return }
                connectionLost(reason.description)
                // A session that ran for a while and ended is no failure to back off from: the accessory
                // most likely closed it for being idle, and reads and writes wait for the new one.
                // One that ended sooner leaves the back-off growing: an accessory that drops every session
                // right after its sync would otherwise be synced again twice a second.
                if ContinuousClock.now - began >= Self.healthySession {
                    backoff.reset()
                    quietBeforeLoss = await client.connection.quietBeforeClose
                    continue
                }
            case .failed(let reason):
                guard !stopped else { return }
                attemptFailed(reason)
            case .rejected(let reason):
                guard !stopped else { return }
                rejected(reason)
                guard await waitForAnnouncementElsewhere() else { return }
                continue
            case .identityUnusable(let problem):
                guard !stopped else { return }
                await identityUnusable(problem)
                guard await waitForIdentity() else { return }
                continue
            }
            let delay = backoff.nextDelay()
            logger.debug("reconnecting in \(CharacteristicValue.format((delay.inSeconds * 100).rounded() / 100)) s")
            if await wakeup.wait(upTo: delay) {
                announcedReturn()
                let spacing = Self.minimumAttemptSpacing - (ContinuousClock.now - attemptStarted)
                if spacing > .zero { try? await Task.sleep(for: spacing) }
            }
        }
    }

    /// How long a session must have run for its end to be followed by an immediate reconnect.
    static let healthySession = Duration.seconds(1)

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
        connectedEndpoint = endpoint
        let numbers = (announcement?.configurationNumber, announcement?.stateNumber)
        syncing = client
        defer { syncing = nil }
        do {
            let (accessories, synced, values) = try await syncAccessories(client)
            guard !stopped else {
                await client.connection.close()
                return .failed("stopped")
            }
            syncedNumbers = numbers
            install(client, synced, accessories, readResults: values)
            // An announcement during the sync may have brought a newer c# or s#.
            announcementsChanged()
            return .connected(client)
        } catch {
            await client.connection.close()
            connectedEndpoint = nil
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
        let values = try await client.read(synced.readable)
        synced.apply(values, to: &accessories)
        let subscriptions = try await client.subscribe(synced.evented)
        // A characteristic that advertises events but refuses the subscription is polled instead.
        let refused = synced.evented.filter { subscriptions[$0]?.status.isSuccess != true }
        if !refused.isEmpty {
            logger.debug("events refused for \(refused.map(\.description).joined(separator: ",")); polled instead")
            synced.polled += refused
        }
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
            try cache.save(body)
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
        var logged = reportedListProblems
        for problem in problems where logged.insert(problem.description).inserted {
            let line = "the accessory list of \(displayName): \(problem)"
            if problem.action == .skipped { logger.warning("\(line)") } else { logger.info("\(line)") }
        }
        reportedListProblems = Set(problems.map(\.description))
    }

    /// Makes `client` the live session and reports the sync: accessories whose every read answered
    /// `-70402` unreachable (reported before the sync, so that they never show as online), the accessories,
    /// then the others reachable.
    private func install(
        _ client: HAPClient, _ synced: AccessoryIndex, _ accessories: [Accessory],
        readResults: [HAPCharacteristicID: HAPCharacteristicResult]
    ) {
        self.client = client
        self.index = synced
        sessionsInstalled += 1
        firstSyncReported = true
        cancelOfflineReport()
        offlineAIDs = [:]
        let unreachable = synced.unreachableAIDs(in: readResults)
        for aid in unreachable { offlineAIDs[aid] = Self.bridgedUnreachableReason }
        let offline = synced.ids.filter { unreachable.contains($0.aid) }
        if !offline.isEmpty { emit(.reachability(offline, reachable: false, reason: Self.bridgedUnreachableReason)) }
        emit(.synced(accessories))
        let online = synced.ids.filter { !unreachable.contains($0.aid) }
        if !online.isEmpty { emit(.reachability(online, reachable: true, reason: nil)) }
        logger.info(
            "connected to \(displayName) at \(connectedEndpoint ?? address): \(accessories.count) accessories, "
                + "\(synced.evented.count) characteristics with events, \(synced.polled.count) polled")
        for id in offline {
            logger.warning(
                "accessory \(id) is unreachable behind its bridge (HAP status -70402)", ["accessory": id.description])
        }
        reconnectEnded(with: client)
    }

    /// The connection of a synced session closed.
    private func connectionLost(_ reason: String) {
        disconnectReason = reason
        offlineAIDs = [:]
        reconnecting = true
        // An unpair makes the accessory close this session: expected, and the provider is stopped next.
        if controller.isRemoved(pairing.accessoryPairingID) {
            logger.info("the connection to \(displayName) closed: its pairing was removed")
        } else {
            logger.warning("lost the connection to \(displayName): \(reason); reconnecting")
        }
        if let ids = index?.ids, !ids.isEmpty { holdOfflineReport(ids) }
    }

    /// Takes the quiet time before the accessory ended a session; a shorter idle limit shortens the
    /// keep-alive of the next sessions.
    private func learnIdleLimit(_ quiet: Duration) {
        guard idleLimit.learn(quiet: quiet) else { return }
        let keepalive = idleLimit.keepalive(configured: settings.keepaliveInterval)
        guard keepalive < settings.keepaliveInterval else { return }
        logger.info(
            "\(displayName) ended a connection quiet for \(CharacteristicValue.format((quiet.inSeconds * 10).rounded() / 10)) s; "
                + "keeping its connection alive every \(CharacteristicValue.format((keepalive.inSeconds * 10).rounded() / 10)) s"
        )
    }

    /// A connection attempt failed. The first time, the first sync is reported from the cache (or as
    /// failed); the accessories are unreachable already otherwise.
    private func attemptFailed(_ reason: String) {
        disconnectReason = reason
        reconnectEnded(with: nil)
        sendOfflineReport()
        failuresInARow += 1
        if failuresInARow == 1 {
            logger.warning("cannot connect to \(displayName): \(reason); retrying with back-off")
        } else {
            logger.info("still cannot connect to \(displayName) (attempt \(failuresInARow)): \(reason)")
        }
        if !firstSyncReported { reportFirstSyncFromCache(reason) }
    }

    /// After a rejection: waits for an announcement of the paired accessory, as paired, at an address
    /// other than the stored one (`announced(_:)` signals it), and returns true to try once more; false
    /// at `stop()`, and at once without DNS-SD. The stored address refused this controller, but that
    /// proves little when the answer came before the accessory proved who it is: an accessory with no
    /// pairing at all answers pair-verify M1 with Authentication, and that may be another accessory that
    /// took the address (docs/hap-notes.md §7.10).
    private func waitForAnnouncementElsewhere() async -> Bool {
        guard discovery != nil else { return false }
        while !stopped, !Task.isCancelled {
            if await wakeup.wait(upTo: .seconds(3600)) {
                guard !stopped else { return false }
                isRejected = false
                logger.info("\(displayName) is announced as paired at another address; trying pair-verify there")
                return true
            }
        }
        return false
    }

    /// How often the identity is tried again while it cannot be loaded: as often as the running gateway
    /// reads the pairing files, so that a restored `controller.json` is taken up as fast as a new pairing.
    static let identityPollInterval = Duration.seconds(2)

    /// This controller's identity cannot be loaded, so no accessory can be reached: the controller logs
    /// it once for all of them; the accessories are unreachable with that reason.
    private func identityUnusable(_ problem: PairingStoreError) async {
        await controller.reportIdentityProblem(problem)
        disconnectReason = problem.description
        reconnectEnded(with: nil)
        cancelOfflineReport()
        if !firstSyncReported {
            reportFirstSyncFromCache(disconnectReason)
        } else if let ids = index?.ids, !ids.isEmpty {
            emit(.reachability(ids, reachable: false, reason: disconnectReason))
        }
    }

    /// Tries to load the identity every `identityPollInterval` until it loads (true: connect now); false at
    /// `stop()`.
    private func waitForIdentity() async -> Bool {
        while !stopped, !Task.isCancelled {
            try? await Task.sleep(for: Self.identityPollInterval)
            guard !stopped, !Task.isCancelled else { return false }
            if await controller.identityLoads() { return true }
        }
        return false
    }

    /// The accessory refused this controller: say what to do, mark everything unreachable, stop trying.
    private func rejected(_ reason: String) {
        isRejected = true
        disconnectReason = "\(reason); pair again with hap2mqtt pair"
        reconnectEnded(with: nil)
        cancelOfflineReport()
        let file = PairingStore.fileName(forAccessory: pairing.accessoryPairingID)
        if (try? controller.store.directory.read(file)) == .some(nil) {
            // hap2mqtt unpair removed it on the accessory and then here; the running gateway's pairing
            // watcher removes this provider in a moment. Not an error to alarm anyone with.
            logger.notice("\(displayName) (\(pairing.accessoryPairingID)) was unpaired; its accessories go away")
        } else {
            logError(reason)
        }
        if !firstSyncReported {
            reportFirstSyncFromCache(disconnectReason)
        } else if let ids = index?.ids, !ids.isEmpty {
            emit(.reachability(ids, reachable: false, reason: disconnectReason))
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
        firstSyncReported = true
        let cached: [Accessory]?
        do {
            cached = try cache.load()
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
    static let bridgedUnreachableReason = "the bridge cannot reach it (HAP status -70402)"
}
