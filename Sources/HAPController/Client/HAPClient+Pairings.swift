extension HAPClient {
    /// The controllers paired with the accessory (List Pairings, HAP spec §5.12; `POST /pairings`). Only
    /// admin controllers may ask.
    /// - Throws: `.pairing(.notAdmin)` when this controller is not an admin, other `.pairing` errors for
    ///   the accessory's error codes, `.refused` or `.invalidResponse` for an HTTP error, or why the
    ///   connection closed.
    public func listPairings() async throws(HAPConnectionError) -> [PairingRecord] {
        let body = try await postPairings(PairingManagement.listRequest())
        do {
            return try PairingManagement.parseList(body)
        } catch {
            throw .pairing(error)
        }
    }

    /// Adds another controller with pairing id `pairingID` and Ed25519 long-term public key `publicKey`
    /// (Add Pairing, HAP spec §5.10); `admin` lets it manage pairings too.
    /// - Throws: as `listPairings`, and `.pairing(.maxPeers)` when the accessory is full.
    public func addPairing(pairingID: String, publicKey: [UInt8], admin: Bool) async throws(HAPConnectionError) {
        try await checkedPairings(
            PairingManagement.addRequest(pairingID: pairingID, publicKey: publicKey, admin: admin))
    }

    /// Removes the controller with pairing id `pairingID` (Remove Pairing, HAP spec §5.11). Removing this
    /// controller's own pairing makes the accessory drop its connections, this one included; removing the
    /// last admin unpairs the accessory from everyone.
    /// - Throws: as `listPairings`.
    public func removePairing(_ pairingID: String) async throws(HAPConnectionError) {
        try await checkedPairings(PairingManagement.removeRequest(pairingID: pairingID))
    }

    private func checkedPairings(_ body: [UInt8]) async throws(HAPConnectionError) {
        let answer = try await postPairings(body)
        do {
            try PairingManagement.checkResponse(answer)
        } catch {
            throw .pairing(error)
        }
    }

    private func postPairings(_ body: [UInt8]) async throws(HAPConnectionError) -> [UInt8] {
        guard await connection.isEncrypted else { throw .notVerified }
        return try await connection.postPairing("/pairings", body)
    }
}
