public import HomeStore

/// The controller pairings of an accessory server, managed for `Management` (`bridge/request/list_pairings`,
/// `add_pairing`, `remove_pairing` and `hap2mqtt pairings`): each opens a verified connection of its own, as
/// `unpair` does, sends one `POST /pairings` and lists the pairings the accessory then holds
/// (docs/hap-notes.md §4.6). The accessory's own answer is the result: a TLV error such as "not an admin"
/// comes back as the error line.
extension HAPAccessoryPairing {
    public func controllerPairings(of nameOrID: String) async throws(ManagementError) -> ControllerPairings {
        try await managingPairings(of: nameOrID, refusingOwn: nil) { _ throws(HAPConnectionError) in }
    }

    public func addControllerPairing(_ controller: ControllerPairing, to nameOrID: String) async throws(ManagementError)
        -> ControllerPairings
    {
        try await managingPairings(
            of: nameOrID,
            refusingOwn: (
                controller.id, "is this gateway's own pairing id with the accessory; give another controller's"
            )
        ) { client throws(HAPConnectionError) in
            try await client.addPairing(
                pairingID: controller.id, publicKey: controller.publicKey, admin: controller.admin)
        }
    }

    public func removeControllerPairing(_ pairingID: String, from nameOrID: String) async throws(ManagementError)
        -> ControllerPairings
    {
        try await managingPairings(
            of: nameOrID,
            refusingOwn: (
                pairingID,
                "is this gateway's own pairing with the accessory: remove it with unpair (bridge/request/unpair, hap2mqtt unpair), which forgets it here too"
            )
        ) { client throws(HAPConnectionError) in
            try await client.removePairing(pairingID)
        }
    }

    /// Connects to the accessory server `nameOrID`, runs `change`, and lists its pairings. A `change` that
    /// names this gateway's own pairing id (`refusingOwn`) is refused with its reason before anything is
    /// sent.
    private func managingPairings(
        of nameOrID: String, refusingOwn: (id: String, reason: String)?,
        _ change: (HAPClient) async throws(HAPConnectionError) -> Void
    ) async throws(ManagementError) -> ControllerPairings {
        let pairing: Pairing
        let own: String
        do {
            pairing = try await controller.pairing(named: nameOrID)
            own = try await controller.identity(for: pairing).pairingID
        } catch {
            throw ManagementError(error)
        }
        if let refusingOwn, refusingOwn.id.lowercased() == own.lowercased() {
            throw .invalidRequest("\(refusingOwn.id) \(refusingOwn.reason)")
        }
        let client: HAPClient
        do {
            client = try await controller.connect(to: pairing)
        } catch {
            throw ManagementError(error, pairing: pairing.displayName)
        }
        let records: [PairingRecord]
        do {
            try await change(client)
            records = try await client.listPairings()
        } catch {
            await client.connection.close()
            throw ManagementError(.connection(error), pairing: pairing.displayName)
        }
        await client.connection.close()
        return ControllerPairings(
            id: pairing.accessoryPairingID, name: pairing.displayName, ownID: own,
            pairings: records.map { ControllerPairing(id: $0.pairingID, publicKey: $0.publicKey, admin: $0.isAdmin) })
    }
}
