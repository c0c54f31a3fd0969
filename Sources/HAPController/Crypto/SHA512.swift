import COpenSSL

/// SHA-512 (FIPS 180-4) through libcrypto's `EVP_sha512`.
public enum SHA512 {
    /// The digest size in bytes.
    public static let digestLength = 64

    /// The SHA-512 digest (64 bytes) of the concatenation of `parts`, hashed without building the
    /// concatenation. Throws `CryptoError.openSSL` only if libcrypto cannot allocate its context.
    public static func hash(_ parts: [UInt8]...) throws(CryptoError) -> [UInt8] {
        try hash(parts: parts)
    }

    /// The SHA-512 digest (64 bytes) of the concatenation of `parts`.
    public static func hash(parts: [[UInt8]]) throws(CryptoError) -> [UInt8] {
        let context = try OpenSSL.check(EVP_MD_CTX_new(), "EVP_MD_CTX_new")
        defer { EVP_MD_CTX_free(context) }
        try OpenSSL.check(EVP_DigestInit_ex(context, EVP_sha512(), nil), "EVP_DigestInit_ex")
        for part in parts where !part.isEmpty {
            let status = part.withUnsafeBytes { EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
            try OpenSSL.check(status, "EVP_DigestUpdate")
        }
        var digest = [UInt8](repeating: 0, count: digestLength)
        var length: UInt32 = 0
        try OpenSSL.check(EVP_DigestFinal_ex(context, &digest, &length), "EVP_DigestFinal_ex")
        return digest
    }
}
