import HomeModel
import SystemSupport

extension HAPController {
    /// Pairs with the accessory server at `host`:`port` (pair-setup, HAP spec §5.6) and saves the pairing
    /// before anything else happens (docs/hap-notes.md §7.16). `pairSetup(host:port:setupCode:name:featureFlags:)`
    /// with only the pairing as the result.
    public func pair(
        host: String, port: UInt16, setupCode: SetupCode, name: String? = nil, featureFlags: Int = 0
    ) async throws(HAPControllerError) -> Pairing {
        try await pairSetup(host: host, port: port, setupCode: setupCode, name: name, featureFlags: featureFlags)
            .pairing
    }

    /// Pairs with the accessory server at `host`:`port` (pair-setup, HAP spec §5.6) and saves the pairing
    /// before anything else happens (docs/hap-notes.md §7.16).
    ///
    /// When this controller has a pairing with the same accessory (same accessory pairing id: the
    /// accessory was reset or forgot this controller, or pair-setup would have refused), the new pairing
    /// replaces it and `PairOutcome.replaced` is that old pairing. Without a `name` the pairing keeps the old
    /// pairing's name, else it takes the accessory's Name (read over a pair-verified connection right after
    /// saving; `Kitchen 2` when another pairing has it); if that read fails the pairing is kept and goes by
    /// the accessory's id.
    ///
    /// A `name` that another pairing has is refused before any contact unless that pairing has this
    /// address, so may be the same accessory. When pair-setup then shows another accessory, the new
    /// pairing is removed from the accessory again and the name refused; if the accessory cannot be told,
    /// the pairing is kept under a numbered name (`Kitchen 2`) with a warning, as it cannot be lost.
    /// - Parameter featureFlags: the accessory's `ff` TXT value when discovery gave it (0: plain pair-setup).
    /// - Throws: `.nameInUse` when `name` belongs to another accessory's pairing; `.connection` with the
    ///   reason (e.g. `.connection(.pairing(.wrongSetupCode))`, `.alreadyPaired`, `.connectFailed`);
    ///   `.notAnAccessory` when the first pair-setup exchange breaks the connection or is not answered in
    ///   HTTP; `.alreadyPairedHere` when the accessory is paired and this controller has a pairing at its
    ///   address; `.noRoomForPairing` before M1 when the state directory has no room for the pairing file;
    ///   `.pairingNotSaved` when the accessory paired but the file could not be written; `.storage`.
    public func pairSetup(
        host: String, port: UInt16, setupCode: SetupCode, name: String? = nil, featureFlags: Int = 0
    ) async throws(HAPControllerError) -> PairOutcome {
        let identity = try identity()
        let others = pairings()
        let owner = name.flatMap { name in others.first { $0.name?.lowercased() == name.lowercased() } }
        if let owner, owner.host != host || owner.port != port { throw .nameInUse(owner.displayName) }
        let connection = try await open(host: host, port: port)
        // Read before this pair-setup records itself: a record left by a pair-setup that was killed.
        let interrupted = store.interruptedPairSetup()
        do {
            try store.beginPairSetup(PendingPairSetup(host: host, port: port))
        } catch {
            await connection.close()
            throw .storage(error)
        }
        // The accessory stores the pairing when it accepts M5, and cannot be asked for it again: the room
        // for the pairing file is taken before M1, and given back only to write that file.
        let reservation: SpaceReservation
        do {
            reservation = try store.directory.reserveSpace(Self.pairingFileReserve, for: Self.reserveFileName)
        } catch {
            store.endPairSetup()
            await connection.close()
            throw .noRoomForPairing(directory: store.directory.path, error)
        }
        var pairing: Pairing
        do {
            let result = try await connection.pairSetupSteps(
                setupCode: setupCode, controller: identity, featureFlags: featureFlags,
                timeout: HAPConnection.pairSetupStepTimeout)
            pairing = Pairing(controller: identity, accessory: result, host: host, port: port, name: name)
        } catch {
            reservation.release()
            await connection.close()
            throw Self.pairSetupFailure(
                error, host: host, port: port, others: others, interrupted: interrupted, store: store)
        }
        // Saved before anything else is done with M6's result (docs/hap-notes.md §7.16): the accessory has
        // held the pairing since it accepted M5, and a controller stopped before saving loses it for good.
        let replaced = others.first { $0.accessoryPairingID.lowercased() == pairing.accessoryPairingID.lowercased() }
        let nameOwner = owner.flatMap {
            $0.accessoryPairingID.lowercased() == pairing.accessoryPairingID.lowercased() ? nil : $0
        }
        if let nameOwner {
            // Kept under a numbered name unless the accessory lets it go again (refuseName).
            pairing.name = Self.unique(nameOwner.displayName, among: others)
        } else if name == nil {
            pairing.name = replaced?.name
        }
        reservation.release()
        do {
            try store.save(pairing)
            store.endPairSetup()
        } catch {
            await connection.close()
            throw .pairingNotSaved(accessoryPairingID: pairing.accessoryPairingID, error)
        }
        if let nameOwner {
            try await refuseName(of: nameOwner, for: pairing, replacing: replaced, over: connection, identity: identity)
        }
        let metadata = ["hap.accessory": pairing.accessoryPairingID, "hap.host": "\(host):\(port)"]
        logger.notice(replaced == nil ? "paired" : "paired again, replacing the old pairing", metadata)
        if pairing.name == nil {
            pairing.name = await accessoryName(over: connection, pairing: pairing, identity: identity)
                .map { Self.unique($0, among: others.filter { $0.accessoryPairingID != pairing.accessoryPairingID }) }
            if pairing.name != nil {
                do {
                    try store.save(pairing)
                } catch {
                    logger.warning(
                        "could not save the pairing's name: \(error)", ["hap.accessory": pairing.accessoryPairingID])
                    pairing.name = nil
                }
            }
        }
        await connection.close()
        return PairOutcome(pairing: pairing, replaced: replaced)
    }

    /// Pair-setup at the address of `owner`, the pairing with the name asked for, reached another
    /// accessory: removes the new pairing (saved already, under a numbered name) on that accessory and
    /// here, puts back the pairing it `replaced` if any, and throws `.nameInUse`. When the accessory cannot
    /// be told, the pairing must be kept: it stays saved under its numbered name and the call returns.
    private func refuseName(
        of owner: Pairing, for pairing: Pairing, replacing replaced: Pairing?, over connection: HAPConnection,
        identity: ControllerIdentity
    ) async throws(HAPControllerError) {
        let ownerName = owner.displayName
        let metadata = ["hap.accessory": pairing.accessoryPairingID]
        let failure: HAPConnectionError?
        do throws(HAPConnectionError) {
            try await connection.verify(controller: identity, pairing: pairing)
            try await HAPClient(connection: connection, pairing: pairing).removePairing(identity.pairingID)
            failure = nil
        } catch {
            failure = error
        }
        guard let failure else {
            await connection.close()
            do {
                if let replaced {
                    try store.save(replaced)
                } else {
                    try store.remove(accessoryPairingID: pairing.accessoryPairingID)
                }
            } catch {
                logger.warning("could not undo the saved pairing: \(error)", metadata)
            }
            logger.notice("removed the new pairing again: its name belongs to another accessory's pairing", metadata)
            throw .nameInUse(ownerName)
        }
        logger.warning(
            "\"\(ownerName)\" names the pairing of another accessory (\(owner.accessoryPairingID)), and the new "
                + "pairing could not be removed from the accessory (\(failure)): it is kept as \"\(pairing.name ?? "")\"",
            metadata)
    }

    /// The error for a pair-setup that failed, after the record of it was forgotten: an accessory that is
    /// paired already is explained by this controller's pairing at its address, or by a pair-setup with
    /// that address that was `interrupted` (the process was killed between M5 and M6).
    private static func pairSetupFailure(
        _ failure: PairSetupFailure, host: String, port: UInt16, others: [Pairing], interrupted: PendingPairSetup?,
        store: PairingStore
    ) -> HAPControllerError {
        store.endPairSetup()
        if failure.error == .pairing(.alreadyPaired) {
            if let mine = others.first(where: { $0.host == host && $0.port == port }) {
                return .alreadyPairedHere(name: mine.displayName)
            }
            if let interrupted, interrupted.host == host, interrupted.port == port {
                return .interruptedPairing(interrupted)
            }
        }
        if !failure.answered, isNotHAP(failure.error) {
            return .notAnAccessory(host: host, port: port, reason: failure.error)
        }
        return .connection(failure.error)
    }

    /// Whether a failure of the first pair-setup exchange says that no HAP accessory server answers: the
    /// connection broke, or the answer was not HTTP or not the answer of HAP.
    static func isNotHAP(_ error: HAPConnectionError) -> Bool {
        switch error {
        case .connectionLost, .malformedHTTP, .protocolViolation, .invalidResponse: return true
        default: return false
        }
    }

    /// The accessory server's Name (of aid 1, else of its first accessory), read over `connection` after
    /// pair-verify; nil (with a warning) when that fails.
    private func accessoryName(over connection: HAPConnection, pairing: Pairing, identity: ControllerIdentity) async
        -> String?
    {
        do {
            try await connection.verify(controller: identity, pairing: pairing)
            let list = try await HAPClient(connection: connection, pairing: pairing).accessories()
            let primary = list.accessories.first { $0.aid == 1 } ?? list.accessories.first
            guard let name = primary?.information(.Characteristic.name)?.trimmingCharacters(in: .whitespaces),
                !name.isEmpty
            else { return nil }
            return name
        } catch {
            logger.warning(
                "paired, but could not read the accessory's name (\(error)); the pairing goes by its id",
                ["hap.accessory": pairing.accessoryPairingID])
            return nil
        }
    }

    /// The room taken for the pairing file during pair-setup: two pages, far more than a pairing file
    /// (about 400 bytes, with a name of up to a few hundred) or its directory entry take.
    static let pairingFileReserve = 8192
    /// The reserving file's name before its temporary-file tail (`SpaceReservation`).
    static let reserveFileName = "pair-setup-reserve"

    /// `name`, or `name 2`, `name 3`, … when another pairing has it (any case).
    static func unique(_ name: String, among pairings: [Pairing]) -> String {
        let taken = Set(pairings.compactMap { $0.name?.lowercased() })
        guard taken.contains(name.lowercased()) else { return name }
        var n = 2
        while taken.contains("\(name) \(n)".lowercased()) { n += 1 }
        return "\(name) \(n)"
    }
}

/// What `HAPController.pairSetup` did.
public struct PairOutcome: Sendable, Hashable {
    /// The saved pairing.
    public var pairing: Pairing
    /// This controller's earlier pairing with the same accessory (same accessory pairing id), which the new
    /// one replaced: the accessory had been reset or had forgotten this controller. nil for a first pairing.
    public var replaced: Pairing?

    public init(pairing: Pairing, replaced: Pairing?) {
        self.pairing = pairing
        self.replaced = replaced
    }
}
