extension HAPController {
    /// Removes the pairing called `nameOrID` (see `pairing(named:)`) on the accessory, then here.
    ///
    /// It pair-verifies and sends Remove Pairing for this controller's own id (HAP spec §5.11), so the
    /// accessory forgets this controller and may be paired again. Then the local file goes:
    /// - when the accessory removed the pairing: `.removed`;
    /// - when pair-verify says the accessory no longer knows this controller (it was reset, or another
    ///   controller removed it): `.alreadyRemovedOnAccessory`;
    /// - when the accessory cannot be reached or refuses: the local pairing is KEPT and
    ///   `.unpairFailed` thrown, so that it can be tried again once the accessory is back. With `force` the
    ///   local pairing is deleted anyway (`.removedLocallyOnly`); the accessory then still lists this
    ///   controller and must be reset before anyone else can pair with it.
    /// - Throws: `.unknownPairing`, `.ambiguousPairing`, `.unpairFailed` (not with `force`), `.storage`.
    @discardableResult
    public func unpair(_ nameOrID: String, force: Bool = false) async throws(HAPControllerError) -> UnpairOutcome {
        let pairing = try pairing(named: nameOrID)
        let identity = try identity(for: pairing)
        let metadata = ["hap.accessory": pairing.accessoryPairingID]
        markRemoving(pairing.accessoryPairingID, true)
        defer { markRemoving(pairing.accessoryPairingID, false) }
        let outcome: UnpairOutcome
        do throws(HAPControllerError) {
            let client = try await connect(to: pairing)
            let removal: Result<Void, HAPConnectionError>
            do {
                try await client.removePairing(identity.pairingID)
                removal = .success(())
            } catch {
                removal = .failure(error)
            }
            await client.connection.close()
            try removal.mapError(HAPControllerError.connection).get()
            outcome = .removed
        } catch .connection(.pairing(.authenticationFailed)) {
            outcome = .alreadyRemovedOnAccessory
        } catch .connection(let reason) {
            guard force else { throw .unpairFailed(name: pairing.displayName, reason: reason) }
            logger.warning("removing the pairing here only: the accessory could not be told (\(reason))", metadata)
            outcome = .removedLocallyOnly(reason: reason)
        }
        do {
            try store.remove(accessoryPairingID: pairing.accessoryPairingID)
        } catch {
            throw .storage(error)
        }
        do {
            try AccessoryCache(directory: store.directory, accessoryPairingID: pairing.accessoryPairingID).remove()
        } catch {
            logger.warning("could not remove the cached accessory list: \(error)", metadata)
        }
        do {
            try AccessoryProfileFile(directory: store.directory, accessoryPairingID: pairing.accessoryPairingID)
                .remove()
        } catch {
            logger.warning("could not remove the learned profile: \(error)", metadata)
        }
        logger.notice("unpaired", metadata)
        return outcome
    }
}
