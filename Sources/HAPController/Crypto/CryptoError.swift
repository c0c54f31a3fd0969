/// Why a cryptographic operation failed. Prints as one line.
///
/// Thrown by every type in `Crypto/` (SHA-512, HKDF, ChaCha20-Poly1305, X25519, Ed25519, SRP-6a, random bytes).
public enum CryptoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A libcrypto call failed; `function` names it, `detail` is OpenSSL's error queue text (may be empty).
    case openSSL(function: String, detail: String)
    /// A key, nonce or other fixed-size input had the wrong length.
    case invalidLength(what: String, expected: Int, actual: Int)
    /// A ChaCha20-Poly1305 tag did not verify: the data was altered or the key or nonce is wrong.
    case authenticationFailed
    /// A public key that must not be used: an X25519 point of small order (all-zero shared secret), or an SRP
    /// server value B ≡ 0 (mod N) or a scrambling parameter u = 0 (RFC 5054 §2.5.3).
    case invalidPublicKey(String)
    /// An output length outside what the algorithm can give (HKDF-SHA512: 1…16320 bytes).
    case invalidOutputLength(Int)
    /// The secure random generator could not produce bytes.
    case randomUnavailable

    public var description: String {
        switch self {
        case .openSSL(let function, let detail):
            return detail.isEmpty ? "OpenSSL \(function) failed" : "OpenSSL \(function) failed: \(detail)"
        case .invalidLength(let what, let expected, let actual):
            return "\(what) must be \(expected) bytes, not \(actual)"
        case .authenticationFailed:
            return "authentication tag mismatch: the data was altered or the key is wrong"
        case .invalidPublicKey(let why):
            return "unusable public key: \(why)"
        case .invalidOutputLength(let length):
            return "HKDF-SHA512 gives 1 to 16320 bytes, not \(length)"
        case .randomUnavailable:
            return "the system's secure random generator failed"
        }
    }
}
