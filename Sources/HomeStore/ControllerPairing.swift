import Foundation

/// One controller paired with an accessory (HAP spec §5.10–§5.12): its pairing id, its Ed25519
/// long-term public key and whether it is an admin, which may list, add and remove pairings.
public struct ControllerPairing: Sendable, Hashable {
    /// The longest pairing id taken, in UTF-8 bytes: HAP's ids are 36-character UUIDs, and a TLV8
    /// item carries up to 255 bytes.
    public static let maxIDLength = 64
    /// The length of an Ed25519 public key (RFC 8032 §5.1.5).
    public static let publicKeyLength = 32

    /// The controller's pairing id, as the accessory knows it.
    public var id: String
    /// Its Ed25519 long-term public key, 32 bytes.
    public var publicKey: [UInt8]
    /// Whether it is an admin of the accessory.
    public var admin: Bool

    public init(id: String, publicKey: [UInt8], admin: Bool) {
        self.id = id
        self.publicKey = publicKey
        self.admin = admin
    }

    /// A controller to add, read from what a user gives: `id` any text of 1 to `maxIDLength` bytes
    /// without control characters, `publicKey` 32 bytes as 64 hex digits or as base64.
    /// - Throws: `ManagementError.invalidRequest` saying which of the two is wrong and how.
    public init(parsingID id: String, publicKey: String, admin: Bool) throws(ManagementError) {
        guard !id.isEmpty, id.utf8.count <= Self.maxIDLength,
            !id.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == " " })
        else {
            throw .invalidRequest(
                "the controller's pairing id must be 1 to \(Self.maxIDLength) bytes of text without spaces or control characters"
            )
        }
        self.init(id: id, publicKey: try Self.publicKey(publicKey), admin: admin)
    }

    /// The public key as lowercase hex, as lists show it.
    public var publicKeyHex: String { publicKey.map { String(format: "%02x", $0) }.joined() }

    /// The 32 bytes of an Ed25519 public key written as 64 hex digits (either case) or as base64 (with or
    /// without its padding).
    /// - Throws: `ManagementError.invalidRequest` naming the length found or the form expected.
    public static func publicKey(_ text: String) throws(ManagementError) -> [UInt8] {
        let expected = "the controller's public key must be 32 bytes (Ed25519), written as 64 hex digits or as base64"
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.count == 2 * publicKeyLength {
            // Meant as hex: read as base64, a typo would give a length that tells nothing.
            guard let bytes = hexBytes(trimmed) else {
                throw .invalidRequest("\(expected); this one has 64 characters that are not all hex digits")
            }
            return bytes
        }
        if trimmed.allSatisfy(\.isHexDigit), trimmed.count % 2 == 0, let bytes = hexBytes(trimmed) {
            throw .invalidRequest("\(expected); this one is \(bytes.count) bytes")
        }
        var padded = trimmed
        while padded.count % 4 != 0 { padded += "=" }
        guard trimmed.count < 200, let decoded = Data(base64Encoded: padded) else {
            throw .invalidRequest("\(expected); this one is neither")
        }
        guard decoded.count == publicKeyLength else {
            throw .invalidRequest("\(expected); this one is \(decoded.count) bytes")
        }
        return Array(decoded)
    }

    private static func hexBytes(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var high: UInt8?
        for character in text {
            guard let digit = character.hexDigitValue else { return nil }
            if let h = high {
                bytes.append(h << 4 | UInt8(digit))
                high = nil
            } else {
                high = UInt8(digit)
            }
        }
        return high == nil ? bytes : nil
    }
}

/// The controllers paired with one accessory server, as List Pairings gave them.
public struct ControllerPairings: Sendable, Hashable {
    /// The accessory pairing id, `AA:BB:CC:DD:EE:FF`.
    public var id: String
    /// The pairing's name here.
    public var name: String
    /// This gateway's own controller pairing id with the accessory.
    public var ownID: String
    /// Every controller the accessory lists, in its order.
    public var pairings: [ControllerPairing]

    public init(id: String, name: String, ownID: String, pairings: [ControllerPairing]) {
        self.id = id
        self.name = name
        self.ownID = ownID
        self.pairings = pairings
    }
}
