import COpenSSL

/// HKDF (RFC 5869) with SHA-512, the key derivation of every HAP key (HAP spec §5.6, §5.7;
/// docs/hap-notes.md §1.3, §2).
public enum HKDF {
    /// Extract-then-expand HKDF-SHA512 of `key` (the input keying material) with `salt` and `info`, giving
    /// `length` bytes (1…16320, i.e. 255 × 64). An empty salt means the RFC's default of 64 zero bytes.
    /// Throws `CryptoError.invalidLength` for a length outside that range, `CryptoError.openSSL` if
    /// libcrypto fails.
    public static func sha512(key: [UInt8], salt: [UInt8], info: [UInt8], length: Int) throws(CryptoError) -> [UInt8] {
        guard (1...255 * SHA512.digestLength).contains(length) else {
            throw .invalidOutputLength(length)
        }
        let context = try OpenSSL.check(
            EVP_PKEY_CTX_new_from_name(nil, "HKDF", nil), "EVP_PKEY_CTX_new_from_name(HKDF)")
        defer { EVP_PKEY_CTX_free(context) }
        try OpenSSL.check(EVP_PKEY_derive_init(context), "EVP_PKEY_derive_init")
        try OpenSSL.check(EVP_PKEY_CTX_set_hkdf_md(context, EVP_sha512()), "EVP_PKEY_CTX_set_hkdf_md")
        let keyStatus = key.withNonNullPointer {
            EVP_PKEY_CTX_set1_hkdf_key(context, $0, Int32(clamping: $1))
        }
        try OpenSSL.check(keyStatus, "EVP_PKEY_CTX_set1_hkdf_key")
        if !salt.isEmpty {
            let status = salt.withUnsafeBufferPointer {
                EVP_PKEY_CTX_set1_hkdf_salt(context, $0.baseAddress, Int32(clamping: $0.count))
            }
            try OpenSSL.check(status, "EVP_PKEY_CTX_set1_hkdf_salt")
        }
        if !info.isEmpty {
            let status = info.withUnsafeBufferPointer {
                EVP_PKEY_CTX_add1_hkdf_info(context, $0.baseAddress, Int32(clamping: $0.count))
            }
            try OpenSSL.check(status, "EVP_PKEY_CTX_add1_hkdf_info")
        }
        var output = [UInt8](repeating: 0, count: length)
        var outputLength = length
        try OpenSSL.check(EVP_PKEY_derive(context, &output, &outputLength), "EVP_PKEY_derive(HKDF)")
        return output
    }

    /// HKDF-SHA512 with ASCII `salt` and `info` strings, as HAP names them ("Control-Salt",
    /// "Control-Write-Encryption-Key"), giving a 32-byte key by default.
    public static func sha512(key: [UInt8], salt: String, info: String, length: Int = 32) throws(CryptoError) -> [UInt8]
    {
        try sha512(key: key, salt: Array(salt.utf8), info: Array(info.utf8), length: length)
    }
}
