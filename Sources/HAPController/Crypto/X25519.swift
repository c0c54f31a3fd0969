import COpenSSL

/// An X25519 private key (RFC 7748 §5), the ephemeral Diffie-Hellman key of pair-verify (HAP spec §5.7).
/// Holds the 32 raw private bytes; `description` never shows them.
public struct X25519PrivateKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Key and shared-secret size in bytes.
    public static let keyLength = 32

    /// The raw 32-byte private scalar (before clamping, as RFC 7748 stores it).
    public let rawRepresentation: [UInt8]
    /// The raw 32-byte public key (the u-coordinate of scalar · 9).
    public let publicKey: [UInt8]
    /// libcrypto's key, made once (it computes the public key).
    private let key: PKey

    /// A fresh random key. Throws `CryptoError.randomUnavailable` or `CryptoError.openSSL`.
    public init() throws(CryptoError) {
        try self.init(rawRepresentation: SecureRandom.bytes(Self.keyLength))
    }

    /// The key with these 32 raw private bytes. Throws `CryptoError.invalidLength` for another length.
    public init(rawRepresentation: [UInt8]) throws(CryptoError) {
        try OpenSSL.requireLength(rawRepresentation, Self.keyLength, "X25519 private key")
        self.rawRepresentation = rawRepresentation
        key = try PKey.privateKey("X25519", raw: rawRepresentation)
        publicKey = try key.rawPublicKey()
    }

    /// The 32-byte shared secret X25519(self, peerPublicKey). Throws `CryptoError.invalidLength` for a peer
    /// key that is not 32 bytes and `CryptoError.invalidPublicKey` when the result is all zeros (a point of
    /// small order, RFC 7748 §6.1).
    public func sharedSecret(with peerPublicKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        try OpenSSL.requireLength(peerPublicKey, Self.keyLength, "X25519 public key")
        let theirs = try PKey.publicKey("X25519", raw: peerPublicKey)
        let context = try OpenSSL.check(EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil), "EVP_PKEY_CTX_new_from_pkey")
        defer { EVP_PKEY_CTX_free(context) }
        try OpenSSL.check(EVP_PKEY_derive_init(context), "EVP_PKEY_derive_init")
        try OpenSSL.check(EVP_PKEY_derive_set_peer(context, theirs.pointer), "EVP_PKEY_derive_set_peer")
        var secret = [UInt8](repeating: 0, count: Self.keyLength)
        var length = secret.count
        // libcrypto refuses to return an all-zero secret (small-order peer point).
        guard EVP_PKEY_derive(context, &secret, &length) == 1 else {
            _ = OpenSSL.failure("EVP_PKEY_derive(X25519)")
            throw .invalidPublicKey("X25519 peer key gives an all-zero shared secret")
        }
        guard length == Self.keyLength, secret.contains(where: { $0 != 0 }) else {
            throw .invalidPublicKey("X25519 peer key gives an all-zero shared secret")
        }
        return secret
    }

    public var description: String { "X25519PrivateKey(public: \(Hex.encode(publicKey)))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["publicKey": Hex.encode(publicKey)]) }
}
