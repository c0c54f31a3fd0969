extension HAPController {
    /// What `takeOver(_:)` did with a pairing of another controller.
    public enum TakeOver: Sendable, Hashable {
        /// The accessory now also holds this controller's own pairing (Add Pairing, admin): the saved
        /// pairing uses the state directory's identity, and the other controller's pairing no longer
        /// matters to this one.
        case ownPairing(Pairing)
        /// The accessory could not be given this controller's own pairing (`reason`): the saved pairing
        /// keeps the other controller's identity, which both now use.
        case sharedIdentity(Pairing, reason: HAPControllerError)
        /// The state directory holds a pairing with the same accessory and accessory key already; nothing
        /// was changed.
        case alreadyHere(Pairing)
        /// The state directory holds another pairing with this accessory (another accessory key): nothing
        /// was changed.
        case conflicting(Pairing)
    }

    /// Takes over `foreign`, a pairing another controller made (`ForeignPairing`), whose `controller` is
    /// that controller's identity (docs/DESIGN.md "Backup"):
    /// 1. it is saved as it is (with the other controller's keys), so that it works from now on;
    /// 2. the accessory is asked, over a session verified with those keys, to add this controller's own
    ///    identity as an admin (Add Pairing, HAP spec §5.10), and the pairing is saved again with it, once
    ///    a pair-verify with it succeeds. Then the other controller may drop its pairing (Home
    ///    Assistant's removal of the entry does) without touching this one.
    ///
    /// When step 2 fails (the accessory is off, or refuses), the pairing of step 1 stays: both controllers
    /// share the identity until `takeOver` runs again.
    /// - Throws: `.storage` when the identity or the pairing cannot be loaded or saved.
    public func takeOver(_ foreign: Pairing) async throws(HAPControllerError) -> TakeOver {
        let identity = try identity()
        let existing: Pairing?
        do {
            existing = try store.pairing(accessoryPairingID: foreign.accessoryPairingID)
        } catch {
            throw .storage(error)
        }
        var shared = foreign
        if let existing {
            guard existing.accessoryLTPK == foreign.accessoryLTPK else { return .conflicting(existing) }
            guard existing.controller != nil else { return .alreadyHere(existing) }
            shared = existing
        } else {
            // A name another accessory's pairing has would make `unpair NAME` ambiguous.
            if let name = shared.name, pairings().contains(where: { $0.name?.lowercased() == name.lowercased() }) {
                shared.name = nil
            }
            try save(shared)
        }
        var own = shared
        own.controllerPairingID = identity.pairingID
        own.controller = nil
        do throws(HAPControllerError) {
            let client = try await connect(to: shared)
            let added: Result<Void, HAPConnectionError>
            do {
                try await client.addPairing(pairingID: identity.pairingID, publicKey: identity.publicKey, admin: true)
                added = .success(())
            } catch {
                added = .failure(error)
            }
            await client.connection.close()
            try added.mapError(HAPControllerError.connection).get()
            await (try connect(to: own)).connection.close()
        } catch {
            return .sharedIdentity(shared, reason: error)
        }
        try save(own)
        logger.notice(
            "took over the pairing of another controller with this controller's own pairing",
            ["hap.accessory": own.accessoryPairingID])
        return .ownPairing(own)
    }

    private func save(_ pairing: Pairing) throws(HAPControllerError) {
        do {
            try store.save(pairing)
        } catch {
            throw .storage(error)
        }
    }
}
