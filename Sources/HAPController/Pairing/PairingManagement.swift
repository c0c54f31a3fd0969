/// The bodies of `POST /pairings` (HAP spec §5.10–§5.12; docs/hap-notes.md §4.6): add, remove and list the
/// controllers paired with an accessory, and reading the answers. Sent over the encrypted session as
/// `application/pairing+tlv8`; only admin controllers may use them.
public enum PairingManagement {
    /// Add Pairing M1: `State=1, Method=3, Identifier, PublicKey, Permissions` for another controller with
    /// pairing id `pairingID` and Ed25519 long-term public key `publicKey`; `admin` gives it admin rights.
    public static func addRequest(pairingID: String, publicKey: [UInt8], admin: Bool) -> [UInt8] {
        var message: TLV8 = [(.state, [1]), (.method, [PairingMethod.addPairing.rawValue])]
        message.append(.identifier, string: pairingID)
        message.append(.publicKey, publicKey)
        message.append(.permissions, byte: admin ? 1 : 0)
        return message.encoded()
    }

    /// Remove Pairing M1: `State=1, Method=4, Identifier`. Removing this controller's own pairing makes the
    /// accessory drop its sessions; removing the last admin unpairs the accessory entirely.
    public static func removeRequest(pairingID: String) -> [UInt8] {
        var message: TLV8 = [(.state, [1]), (.method, [PairingMethod.removePairing.rawValue])]
        message.append(.identifier, string: pairingID)
        return message.encoded()
    }

    /// List Pairings M1: `State=1, Method=5`.
    public static func listRequest() -> [UInt8] {
        let message: TLV8 = [(.state, [1]), (.method, [PairingMethod.listPairings.rawValue])]
        return message.encoded()
    }

    /// Checks the M2 answer to an add or remove request.
    /// - Throws: `PairingError.notAdmin` for `Error=2`, `.maxPeers`, the other error codes, or
    ///   `.malformedResponse`.
    public static func checkResponse(_ response: [UInt8]) throws(PairingError) {
        _ = try PairingResponse.decode(response, step: "pairings M2", expectedState: 2, authentication: .notAdmin)
    }

    /// The controllers in a List Pairings answer. Records are split at separators and also where a new
    /// `Identifier` starts, so answers from servers that omit separators read the same.
    /// - Throws: the accessory's error codes (`.notAdmin` for `Error=2`), or `.malformedResponse` for a
    ///   record without a public key or with an id that is not UTF-8.
    public static func parseList(_ response: [UInt8]) throws(PairingError) -> [PairingRecord] {
        let step = "list pairings M2"
        let message = try PairingResponse.decode(response, step: step, expectedState: 2, authentication: .notAdmin)
        var records: [PairingRecord] = []
        for entry in message.records(startingWith: .identifier) {
            guard let id = entry[.identifier] else { continue }
            guard let pairingID = String(validating: id, as: UTF8.self) else {
                throw .malformedResponse(step: step, reason: "a pairing id is not UTF-8 text")
            }
            let publicKey = try PairingResponse.require(.publicKey, in: entry, step: step)
            let permissions = UInt8(truncatingIfNeeded: entry.integer(.permissions) ?? 0)
            records.append(PairingRecord(pairingID: pairingID, publicKey: publicKey, permissions: permissions))
        }
        return records
    }
}

/// One controller paired with an accessory, as List Pairings reports it.
public struct PairingRecord: Sendable, Hashable, CustomStringConvertible {
    /// The controller's pairing id.
    public let pairingID: String
    /// The controller's Ed25519 long-term public key.
    public let publicKey: [UInt8]
    /// The raw permissions byte: 0x00 regular user, 0x01 admin.
    public let permissions: UInt8

    /// A record with these fields.
    public init(pairingID: String, publicKey: [UInt8], permissions: UInt8) {
        self.pairingID = pairingID
        self.publicKey = publicKey
        self.permissions = permissions
    }

    /// True for an admin controller (may add and remove pairings).
    public var isAdmin: Bool { permissions & 0x01 != 0 }

    public var description: String { "\(pairingID) (\(isAdmin ? "admin" : "user"))" }
}
