/// The type byte of a TLV8 item in HAP pairing messages (HAP spec §5.15 table 5-6; docs/hap-notes.md §1.1).
/// Unknown types are kept as their raw value.
public struct TLV8Type: RawRepresentable, Hashable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The type byte.
    public let rawValue: UInt8

    /// The type with this byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// The type with this byte, written as a literal (`0x2A`).
    public init(integerLiteral value: UInt8) { self.rawValue = value }

    /// Method to use for pairing (`PairingMethod`).
    public static let method: TLV8Type = 0x00
    /// Pairing id, UTF-8 (controller UUID string or accessory "AA:BB:CC:DD:EE:FF").
    public static let identifier: TLV8Type = 0x01
    /// SRP salt (16 bytes).
    public static let salt: TLV8Type = 0x02
    /// SRP public value (384 bytes), X25519 public key or Ed25519 long-term public key (32 bytes).
    public static let publicKey: TLV8Type = 0x03
    /// SRP proof (64 bytes).
    public static let proof: TLV8Type = 0x04
    /// ChaCha20-Poly1305 ciphertext ‖ 16-byte tag.
    public static let encryptedData: TLV8Type = 0x05
    /// Pairing step: 1…6 for M1…M6.
    public static let state: TLV8Type = 0x06
    /// Error code (`PairingTLVError`).
    public static let error: TLV8Type = 0x07
    /// Seconds to wait before retrying, sent with the Backoff error.
    public static let retryDelay: TLV8Type = 0x08
    /// MFi X.509 certificate.
    public static let certificate: TLV8Type = 0x09
    /// Ed25519 signature (64 bytes).
    public static let signature: TLV8Type = 0x0A
    /// Controller permissions: 0x00 regular user, 0x01 admin.
    public static let permissions: TLV8Type = 0x0B
    /// Fragment of a fragmented message (BLE; unused over IP).
    public static let fragmentData: TLV8Type = 0x0C
    /// Last fragment of a fragmented message (BLE; unused over IP).
    public static let fragmentLast: TLV8Type = 0x0D
    /// Pair-resume session id.
    public static let sessionID: TLV8Type = 0x0E
    /// Pairing type flags.
    public static let flags: TLV8Type = 0x13
    /// Zero-length separator between list items of the same type.
    public static let separator: TLV8Type = 0xFF

    private static let names: [UInt8: String] = [
        0x00: "Method", 0x01: "Identifier", 0x02: "Salt", 0x03: "PublicKey", 0x04: "Proof", 0x05: "EncryptedData",
        0x06: "State", 0x07: "Error", 0x08: "RetryDelay", 0x09: "Certificate", 0x0A: "Signature",
        0x0B: "Permissions", 0x0C: "FragmentData", 0x0D: "FragmentLast", 0x0E: "SessionID", 0x13: "Flags",
        0xFF: "Separator",
    ]

    /// The HAP name ("PublicKey") or, for unknown types, the hex value ("0x2a").
    public var description: String {
        Self.names[rawValue] ?? "0x" + Hex.encode([rawValue])
    }
}

/// The `Method` values of pairing requests (HAP spec §5.15 table 5-3).
public enum PairingMethod: UInt8, Sendable {
    case pairSetup = 0
    /// Pair-setup with MFi authentication; only for accessories whose `ff` flags have bit 0x01.
    case pairSetupWithAuth = 1
    case pairVerify = 2
    case addPairing = 3
    case removePairing = 4
    case listPairings = 5
}

/// The codes of the `Error` item (HAP spec §5.15 table 5-5).
public enum PairingTLVError: UInt8, Sendable, Hashable, CustomStringConvertible {
    /// Generic error for an unexpected condition.
    case unknown = 1
    /// Setup code or signature verification failed.
    case authentication = 2
    /// The client must wait the number of seconds in `RetryDelay` before trying again.
    case backoff = 3
    /// The server cannot accept any more pairings.
    case maxPeers = 4
    /// The server reached its maximum number of authentication attempts.
    case maxTries = 5
    /// The server is already paired, or pairing is otherwise unavailable.
    case unavailable = 6
    /// The server is busy with another pairing.
    case busy = 7

    public var description: String {
        switch self {
        case .unknown: return "Unknown"
        case .authentication: return "Authentication"
        case .backoff: return "Backoff"
        case .maxPeers: return "MaxPeers"
        case .maxTries: return "MaxTries"
        case .unavailable: return "Unavailable"
        case .busy: return "Busy"
        }
    }
}
