import COpenSSL

/// An Ed25519 signing key (RFC 8032 §5.1): a HAP long-term secret key (LTSK) made from a 32-byte seed.
/// `description` never shows the seed.
public struct Ed25519PrivateKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Seed and public key size in bytes.
    public static let keyLength = 32
    /// Signature size in bytes.
    public static let signatureLength = 64

    /// The 32-byte seed (RFC 8032's private key; what HAP controllers store).
    public let seed: [UInt8]
    /// The 32-byte public key (the HAP long-term public key, LTPK).
    public let publicKey: [UInt8]
    /// libcrypto's key, made once (it computes the public key).
    private let key: PKey

    /// A fresh random key. Throws `CryptoError.randomUnavailable` or `CryptoError.openSSL`.
    public init() throws(CryptoError) {
        try self.init(seed: SecureRandom.bytes(Self.keyLength))
    }

    /// The key with this 32-byte seed. Throws `CryptoError.invalidLength` for another length.
    public init(seed: [UInt8]) throws(CryptoError) {
        try OpenSSL.requireLength(seed, Self.keyLength, "Ed25519 seed")
        self.seed = seed
        key = try PKey.privateKey("ED25519", raw: seed)
        publicKey = try key.rawPublicKey()
    }

    /// The 64-byte Ed25519 signature of `message` (pure Ed25519, no pre-hash). Throws `CryptoError.openSSL`.
    public func signature(for message: [UInt8]) throws(CryptoError) -> [UInt8] {
        let context = try OpenSSL.check(EVP_MD_CTX_new(), "EVP_MD_CTX_new")
        defer { EVP_MD_CTX_free(context) }
        // Ed25519 hashes internally: no message digest is given.
        try OpenSSL.check(EVP_DigestSignInit(context, nil, nil, nil, key.pointer), "EVP_DigestSignInit")
        var signature = [UInt8](repeating: 0, count: Self.signatureLength)
        var length = signature.count
        let status = message.withNonNullPointer {
            EVP_DigestSign(context, &signature, &length, $0, $1)
        }
        try OpenSSL.check(status, "EVP_DigestSign")
        return signature
    }

    public var description: String { "Ed25519PrivateKey(public: \(Hex.encode(publicKey)))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["publicKey": Hex.encode(publicKey)]) }
}

/// An Ed25519 public key (RFC 8032 §5.1.7 verification), e.g. an accessory's long-term public key (LTPK).
public struct Ed25519PublicKey: Sendable, Hashable, CustomStringConvertible {
    /// The raw 32 bytes.
    public let rawRepresentation: [UInt8]

    /// The key with these 32 raw bytes. Throws `CryptoError.invalidLength` for another length. A 32-byte
    /// string that is not a curve point is only found out by `isValidSignature` (it returns false).
    public init(rawRepresentation: [UInt8]) throws(CryptoError) {
        try OpenSSL.requireLength(rawRepresentation, Ed25519PrivateKey.keyLength, "Ed25519 public key")
        self.rawRepresentation = rawRepresentation
    }

    /// True when `signature` is a valid Ed25519 signature of `message` under this key. Never throws: a
    /// malformed signature, an invalid key or a libcrypto failure all count as "not valid".
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard signature.count == Ed25519PrivateKey.signatureLength,
            let key = try? PKey.publicKey("ED25519", raw: rawRepresentation),
            let context = EVP_MD_CTX_new()
        else {
            ERR_clear_error()
            return false
        }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, nil, nil, key.pointer) == 1 else {
            ERR_clear_error()
            return false
        }
        let status = signature.withUnsafeBufferPointer { s in
            message.withNonNullPointer { m, count in
                EVP_DigestVerify(context, s.baseAddress, s.count, m, count)
            }
        }
        ERR_clear_error()
        return status == 1
    }

    public var description: String { "Ed25519PublicKey(\(Hex.encode(rawRepresentation)))" }
}
