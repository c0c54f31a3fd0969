import HomeModel
import HomeStore

/// Following the accessory server's DNS-SD announcements (docs/DESIGN.md "Availability and
/// recovery"; docs/hap-notes.md §5, §7.10 and §7.14).
///
/// - Where to connect: the announced addresses first (the most recent announcement first; IPv4, then
///   IPv6, link-local left out), then the stored address. Only pair-verify decides which is the paired
///   accessory: an announced address where it fails (an impostor with a known id, or an accessory reset
///   elsewhere) changes nothing, is logged once and is not tried again for a while. The address where it
///   succeeds becomes the stored one.
/// - An announcement while offline ends the back-off: the accessory is reconnected at once.
/// - While connected: an announcement that no longer lists the connected address, or says "not paired",
///   checks the connection with a quick read (a dead one then closes, and the reconnection finds where
///   the accessory is, or that it was reset); a new `c#` re-fetches `/accessories` on the open connection
///   and reconciles, without marking anything offline; a new `s#` re-reads every value.
extension HAPAccessoryProvider {
    /// How long an address where pair-verify failed is not tried again.
    static let unverifiableLifetime: Duration = .seconds(300)
    /// The limit for the read that checks the connection after an announcement, or before a read or write
    /// on a quiet connection (`checkedSession()`): shorter than the request time-out, so that a connection
    /// to an address the accessory left, or one dropped without a FIN, is given up within seconds.
    static let probeTimeout: Duration = .seconds(3)
    /// The shortest time between two rounds of announcement work (checks, re-fetches, re-reads).
    static let announcementWorkSpacing: Duration = .seconds(1)

    /// How a connection attempt at the candidate addresses ended.
    enum Verification {
        case verified(HAPClient, HAPEndpoint)
        case failed(String)
        case rejected(String)
        /// This controller's identity cannot be loaded: a local file to restore, not the accessory's doing.
        case identityUnusable(PairingStoreError)
    }

    /// `--id ID` when the gateway browses (the address comes from discovery), else `--host H --port P`,
    /// for the pair command the log suggests.
    var pairCommandTarget: String {
        discovery != nil ? "--id \(pairing.accessoryPairingID)" : "--host \(address.host) --port \(address.port)"
    }

    // MARK: - Connecting

    /// Opens a pair-verified connection at the first candidate address that proves the accessory.
    func verifiedConnection() async -> Verification {
        let candidates = await connectionCandidates()
        var failures: [String] = []
        for endpoint in candidates {
            guard !stopped else { return .failed("stopped") }
            logger.debug("connecting to \(endpoint)")
            var target = pairing
            target.host = endpoint.host
            target.port = endpoint.port
            do {
                return .verified(try await controller.connect(to: target) { await self.reachedAccessory() }, endpoint)
            } catch .storage(let error) {
                return .identityUnusable(error)
            } catch .connection(.pairing(let error)) where endpoint != address {
                // Only the stored address may tell this controller that it was removed: elsewhere a
                // failed pair-verify proves nothing about the paired accessory.
                notProven(endpoint, error)
                failures.append("\(endpoint): pair-verify failed (\(error))")
            } catch .connection(.pairing(.authenticationFailed)) {
                return .rejected("the pairing was removed on the accessory")
            } catch {
                failures.append(candidates.count > 1 ? "\(endpoint): \(error)" : error.description)
            }
        }
        return .failed(failures.joined(separator: "; "))
    }

    /// The announced addresses that may be tried (most recent announcement first), then the stored one.
    private func connectionCandidates() async -> [HAPEndpoint] {
        var candidates: [HAPEndpoint] = []
        if let discovery {
            let now = ContinuousClock.now
            following.unverifiable = following.unverifiable.filter { now - $0.value < Self.unverifiableLifetime }
            for advertisement in await discovery.advertisements(for: pairing.accessoryPairingID) {
                for endpoint in advertisement.endpoints
                where following.unverifiable[endpoint] == nil && !candidates.contains(endpoint) {
                    candidates.append(endpoint)
                }
            }
        }
        if !candidates.contains(address) { candidates.append(address) }
        return candidates
    }

    /// Pair-verify at the announced `endpoint` did not prove the paired accessory.
    private func notProven(_ endpoint: HAPEndpoint, _ error: PairingError) {
        following.unverifiable[endpoint] = .now
        // Logged once per address; the set is bounded like the addresses an announcement may carry.
        guard following.reportedUnverifiable.count < 64, following.reportedUnverifiable.insert(endpoint).inserted
        else { return }
        logger.warning(
            "\(displayName) (\(pairing.accessoryPairingID)) is announced at \(endpoint), but pair-verify there failed "
                + "(\(error)): it is not the paired accessory, or it was reset; that address is ignored")
    }

    /// Pair-verify proved the accessory at `endpoint`, which is not the stored address: it moved. The new
    /// address is kept, in the pairing file too.
    func follow(to endpoint: HAPEndpoint) {
        let old = address
        following.address = endpoint
        do {
            try controller.saveAddress(endpoint, of: pairing)
        } catch {
            logger.warning("cannot save the new address of \(displayName) in its pairing file: \(error)")
        }
        logger.notice(
            "\(displayName) moved from \(old) to \(endpoint) (it announced it; pair-verify proved it is the paired accessory)"
        )
    }

    // MARK: - Announcements

    /// The accessory server announced itself (new, or changed).
    func announced(_ advertisement: HAPAdvertisement) async {
        following.announcement = advertisement
        // After a rejection at the stored address, the accessory announcing itself as paired elsewhere
        // (restarted on another port, its old one taken by an unpaired accessory) is worth one more
        // pair-verify there. An address that failed it already is not (`unverifiable`). Offline or
        // connecting, the next attempt starts now, at the announced address.
        let elsewhere = advertisement.endpoints.contains { $0 != address && following.unverifiable[$0] == nil }
        await perform(machine.handle(.announced(pairedElsewhere: advertisement.isPaired && elsewhere)))
    }

    /// The back-off wait ended because the accessory announced itself.
    func announcedReturn() {
        let at =
            announcement.map {
                $0.endpoints.isEmpty ? "" : " at " + $0.endpoints.map(\.description).joined(separator: ", ")
            } ?? ""
        if logLimits.announcements.allows(pairing.accessoryPairingID) {
            logger.info("\(displayName) announced itself\(at); reconnecting now")
        }
    }

    /// Starts the announcement work of the live session, or asks for another round when it runs.
    func announcementsChanged() {
        guard client != nil else { return }
        guard !following.work.running else {
            following.work.again = true
            return
        }
        following.work = (true, false)
        Task { await self.announcementWork() }
    }

    /// Rounds of checks, re-fetches and re-reads while announcements keep changing, at most one every
    /// `announcementWorkSpacing`.
    private func announcementWork() async {
        defer { following.work = (false, false) }
        while !stopped {
            following.work.again = false
            guard let client, let advertisement = announcement else { return }
            if let connected = link.endpoint, !advertisement.isPaired || !advertisement.endpoints.contains(connected) {
                guard await connectionAnswers(client, advertisement) else { return }
            }
            await followNumbers(of: advertisement, on: client)
            guard following.work.again else { return }
            try? await Task.sleep(for: Self.announcementWorkSpacing)
        }
    }

    /// Whether the live connection still answers a read (within `probeTimeout`); one that does not is
    /// closed, and the session's end reconnects (where pair-verify shows where the accessory is now, or
    /// that it was reset).
    private func connectionAnswers(_ client: HAPClient, _ advertisement: HAPAdvertisement) async -> Bool {
        guard let probe = index?.keepalive else { return true }
        do {
            _ = try await client.read([probe], timeout: Self.probeTimeout)
            return true
        } catch {
            logger.info(
                "\(displayName) was announced at \(advertisement.endpoints.map(\.description).joined(separator: ", ")) "
                    + "and the connection to \(link.endpoint.map(\.description) ?? "it") does not answer (\(error)); reconnecting"
            )
            await client.connection.close()
            return false
        }
    }

    /// Re-fetches the accessories when the announced `c#` differs from the one of the last sync, else
    /// re-reads the values when `s#` does. A number not known at the sync is taken as it is announced.
    private func followNumbers(of advertisement: HAPAdvertisement, on client: HAPClient) async {
        if let announced = advertisement.configurationNumber {
            guard let synced = following.syncedNumbers.configuration else {
                following.syncedNumbers.configuration = announced
                return
            }
            if synced != announced {
                await refetch(on: client, from: synced, to: advertisement)
                return
            }
        }
        if let announced = advertisement.stateNumber {
            guard let synced = following.syncedNumbers.state else {
                following.syncedNumbers.state = announced
                return
            }
            if synced != announced {
                following.syncedNumbers.state = announced
                await reread(on: client)
            }
        }
    }

    /// `c#` changed: `/accessories` again on the open connection, values, subscriptions, and a fresh
    /// `.synced` that the store reconciles (accessories, services and characteristics added or removed).
    /// Nothing is marked offline; a bridged accessory answering `-70402` is, as at every sync.
    private func refetch(on client: HAPClient, from old: Int, to advertisement: HAPAdvertisement) async {
        do {
            guard let counts = try await resync(on: client) else { return }
            following.syncedNumbers = (advertisement.configurationNumber, advertisement.stateNumber)
            logger.info(
                "\(displayName) changed its configuration (c# \(old) → \(advertisement.configurationNumber ?? old)); re-fetched "
                    + "\(counts.accessories) accessories on the open connection: \(counts.added) added, \(counts.removed) removed"
            )
        } catch {
            // A broken connection ends the session, whose next sync fetches everything anyway.
            logger.warning(
                "cannot re-fetch the accessories of \(displayName) after its configuration changed: \(error)")
        }
    }

    /// `/accessories` again on the open connection `client`, every value, subscriptions, and a fresh
    /// `.synced` that the store reconciles; nothing is marked offline but a bridged accessory answering
    /// `-70402`, as at every sync.
    /// - Returns: how many accessories there are, and how many were added and removed; nil when the
    ///   session ended meanwhile (its next sync fetches everything anyway).
    /// - Throws: what the requests throw.
    func resync(on client: HAPClient) async throws(HAPConnectionError) -> (accessories: Int, added: Int, removed: Int)?
    {
        let before = Set(index?.ids ?? [])
        let (accessories, synced, values) = try await syncAccessories(client)
        guard self.client?.connection === client.connection, !stopped else { return nil }
        index = synced
        let after = Set(synced.ids)
        emit(.synced(accessories))
        let unreachable = synced.unreachableAIDs(in: values)
        let newlyUnreachable = synced.ids.filter { unreachable.contains($0.aid) && !bridged.isUnreachable($0.aid) }
        bridged.keep(only: unreachable)
        bridged.markUnreachable(newlyUnreachable.map(\.aid))
        if !newlyUnreachable.isEmpty {
            emit(.reachability(newlyUnreachable, reachable: false, reason: Self.bridgedUnreachableReason))
        }
        return (accessories.count, after.subtracting(before).count, before.subtracting(after).count)
    }

    /// `s#` changed: every readable value is read again and reported where it changed.
    private func reread(on client: HAPClient) async {
        guard let ids = index?.readable, !ids.isEmpty else { return }
        let count = await readAndReport(ids, on: client, purpose: "the re-read after a new state number")
        logger.debug("the state number of \(displayName) changed; re-read \(count) values")
    }
}
