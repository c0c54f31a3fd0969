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
        guard let kdf = KDF.hkdf.pointer else { throw OpenSSL.failure("EVP_KDF_fetch(HKDF)") }
        var output = [UInt8](repeating: 0, count: length)
        let status = key.withNonNullPointer { k, kCount in
            salt.withNonNullPointer { s, sCount in
                info.withNonNullPointer { i, iCount in
                    output.withUnsafeMutableBufferPointer { out in
                        hap2mqtt_hkdf_sha512(kdf, k, kCount, s, sCount, i, iCount, out.baseAddress, out.count)
                    }
                }
            }
        }
        try OpenSSL.check(status, "EVP_KDF_derive(HKDF)")
        return output
    }

    /// HKDF-SHA512 with ASCII `salt` and `info` strings, as HAP names them ("Control-Salt",
    /// "Control-Write-Encryption-Key"), giving a 32-byte key by default.
    public static func sha512(key: [UInt8], salt: String, info: String, length: Int = 32) throws(CryptoError) -> [UInt8]
    {
        try sha512(key: key, salt: Array(salt.utf8), info: Array(info.utf8), length: length)
    }
}

/// libcrypto's HKDF, looked up in its provider tables once for the process: a context made by name for
/// every derivation looks the algorithm up again each time, about two thirds of each HKDF's 7-20 µs
/// (three per pair-verify; hap2mqtt-bench hap).
///
/// `@unchecked Sendable`: a fetched `EVP_KDF` is never changed after the fetch and may be used from several
/// threads at once (its reference count is atomic; openssl-threads(7)); it is kept for the process.
private final class KDF: @unchecked Sendable {
    static let hkdf = KDF(EVP_KDF_fetch(nil, "HKDF", nil))

    /// Nil when the fetch failed (every derivation then reports libcrypto's error).
    let pointer: OpaquePointer?

    private init(_ pointer: OpaquePointer?) { self.pointer = pointer }
}
