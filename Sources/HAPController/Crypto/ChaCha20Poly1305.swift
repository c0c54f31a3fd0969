import COpenSSL

/// The ChaCha20-Poly1305 AEAD of RFC 8439 (IETF variant: 32-byte key, 12-byte nonce, 16-byte tag), used for
/// pair-setup M5/M6, pair-verify M2/M3 and the encrypted session (HAP spec §5.6, §6.5.2).
public enum ChaCha20Poly1305 {
    /// Key size in bytes.
    public static let keyLength = 32
    /// Nonce size in bytes (96 bits).
    public static let nonceLength = 12
    /// Poly1305 tag size in bytes.
    public static let tagLength = 16

    /// Encrypts `plaintext` and authenticates it together with `aad`. Returns ciphertext ‖ tag
    /// (`plaintext.count + 16` bytes). Throws `CryptoError.invalidLength` for a key that is not 32 bytes or a
    /// nonce that is not 12, `CryptoError.openSSL` if libcrypto fails.
    public static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8] = []) throws(CryptoError)
        -> [UInt8]
    {
        let context = try ChaCha20Poly1305Context(key: key, encrypt: true)
        var output: [UInt8] = []
        output.reserveCapacity(plaintext.count + tagLength)
        try plaintext.withBytes { text throws(CryptoError) in
            try nonce.withBytes { n throws(CryptoError) in
                try aad.withBytes { a throws(CryptoError) in
                    try context.seal(text, nonce: n, aad: a, appendingTo: &output)
                }
            }
        }
        return output
    }

    /// Checks the tag at the end of `sealed` (ciphertext ‖ tag) against `aad` and returns the plaintext.
    /// Throws `CryptoError.authenticationFailed` when the tag does not match (altered data, wrong key, nonce or
    /// AAD) or `sealed` is shorter than a tag; `CryptoError.invalidLength` for a bad key or nonce size.
    public static func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8] = []) throws(CryptoError)
        -> [UInt8]
    {
        guard sealed.count >= tagLength else { throw .authenticationFailed }
        let context = try ChaCha20Poly1305Context(key: key, encrypt: false)
        var output: [UInt8] = []
        output.reserveCapacity(sealed.count - tagLength)
        try sealed.withBytes { all throws(CryptoError) in
            try nonce.withBytes { n throws(CryptoError) in
                try aad.withBytes { a throws(CryptoError) in
                    let split = all.count - tagLength
                    try context.open(
                        UnsafeRawBufferPointer(rebasing: all[..<split]),
                        tag: UnsafeRawBufferPointer(rebasing: all[split...]),
                        nonce: n, aad: a, appendingTo: &output)
                }
            }
        }
        return output
    }

    /// The 12-byte nonce HAP builds from an 8-byte ASCII label such as "PS-Msg05": four zero bytes, then the
    /// label (docs/hap-notes.md §1.3). Longer labels are cut to 8 bytes, shorter ones padded with zeros.
    public static func nonce(label: String) -> [UInt8] {
        let bytes = Array(label.utf8.prefix(8))
        return [0, 0, 0, 0] + bytes + [UInt8](repeating: 0, count: 8 - bytes.count)
    }
}
