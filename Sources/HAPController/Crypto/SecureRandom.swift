import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's DRBG (`RAND_bytes`), for SRP private values,
/// key seeds and identifiers.
public enum SecureRandom {
    /// `count` random bytes. Throws `CryptoError.randomUnavailable` if the generator is not seeded or failed.
    public static func bytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        guard count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&bytes, Int32(clamping: count)) == 1 else { throw .randomUnavailable }
        return bytes
    }
}
