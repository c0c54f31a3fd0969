import Foundation
import HomeModel
public import JSON

/// This controller's long-term identity (HAP spec §5.6.6.1): its pairing id, a UUID string the accessory
/// stores, and its Ed25519 long-term key pair (LTSK as a 32-byte seed, LTPK). Created once and persisted by
/// the pairing store as JSON (`json`) with the seed and public key as base64. `description` never shows the seed.
public struct ControllerIdentity: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The iOSDevicePairingID: an upper-case UUID string, sent as UTF-8 in pair-setup M5 and pair-verify M3.
    public let pairingID: String
    /// The Ed25519 long-term public key (LTPK, 32 bytes).
    public let publicKey: [UInt8]
    /// The Ed25519 long-term secret key, kept whole so that each signature (pair-verify M3) does not
    /// make the key again from its seed.
    private let key: Ed25519PrivateKey
    /// The Ed25519 seed (LTSK, 32 bytes). Secret.
    var seed: [UInt8] { key.seed }

    /// A new identity with a random UUID and a fresh key pair. Throws `CryptoError` if randomness or
    /// libcrypto fail.
    public static func generate() throws(CryptoError) -> ControllerIdentity {
        let key = try Ed25519PrivateKey()
        return ControllerIdentity(pairingID: UUID().uuidString, key: key)
    }

    /// The identity with this pairing id and 32-byte Ed25519 seed (for importing an existing controller).
    /// Throws `CryptoError.invalidLength` for a seed of another length.
    public init(pairingID: String, seed: [UInt8]) throws(CryptoError) {
        self.init(pairingID: pairingID, key: try Ed25519PrivateKey(seed: seed))
    }

    private init(pairingID: String, key: Ed25519PrivateKey) {
        self.pairingID = pairingID
        self.key = key
        self.publicKey = key.publicKey
    }

    /// The Ed25519 signature of `message` with the long-term secret key.
    func signature(for message: [UInt8]) throws(CryptoError) -> [UInt8] {
        try key.signature(for: message)
    }

    /// Same pairing id and key pair.
    public static func == (lhs: ControllerIdentity, rhs: ControllerIdentity) -> Bool {
        lhs.pairingID == rhs.pairingID && lhs.publicKey == rhs.publicKey && lhs.seed == rhs.seed
    }

    /// Hashes the pairing id and the public key (equal identities have equal ones).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(pairingID)
        hasher.combine(publicKey)
    }

    /// Reads `{"pairingID": …, "seed": base64, "publicKey": base64}`; the public key must be the one the seed
    /// gives, so a damaged file is found when it is read, not at the next pairing.
    /// - Throws: `JSONFieldError` naming the first member that is missing, of the wrong type or impossible.
    public init(json: JSONValue) throws(JSONFieldError) {
        let fields = try JSONFields(json)
        let id = try fields.string("pairingID")
        let seed = try Base64Field.bytes(fields, "seed")
        let stored = try Base64Field.bytes(fields, "publicKey")
        guard let key = try? Ed25519PrivateKey(seed: seed), key.publicKey == stored else {
            throw .invalid("publicKey", reason: "the public key does not belong to the seed")
        }
        self.init(pairingID: id, key: key)
    }

    /// The form `init(json:)` reads; the seed is secret, so protect the file it goes to.
    public var json: JSONValue {
        [
            "pairingID": .string(pairingID),
            "seed": .string(Base64.encode(seed)),
            "publicKey": .string(Base64.encode(publicKey)),
        ]
    }

    public var description: String { "ControllerIdentity(\(pairingID))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["pairingID": pairingID, "publicKey": Hex.encode(publicKey)])
    }
}

/// Base64 byte members of stored JSON objects.
enum Base64Field {
    /// The bytes of the base64 string at `key`, of `length` bytes when given.
    /// - Throws: `JSONFieldError` when the member is missing, not a string, not base64 or of another length.
    static func bytes(_ fields: JSONFields, _ key: String, length: Int? = nil) throws(JSONFieldError) -> [UInt8] {
        guard let bytes = Base64.decode(try fields.string(key)) else { throw .invalid(key, reason: "not base64") }
        if let length, bytes.count != length {
            throw .invalid(key, reason: "\(bytes.count) bytes where \(length) were expected")
        }
        return bytes
    }
}
