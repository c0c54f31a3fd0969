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
        let cipher = try Context(key: key, nonce: nonce, encrypt: true)
        try cipher.addAAD(aad)
        var output = try cipher.update(plaintext)
        try cipher.finish()
        var tag = [UInt8](repeating: 0, count: tagLength)
        let status = EVP_CIPHER_CTX_ctrl(cipher.pointer, EVP_CTRL_AEAD_GET_TAG, Int32(tagLength), &tag)
        try OpenSSL.check(status, "EVP_CIPHER_CTX_ctrl(GET_TAG)")
        output += tag
        return output
    }

    /// Checks the tag at the end of `sealed` (ciphertext ‖ tag) against `aad` and returns the plaintext.
    /// Throws `CryptoError.authenticationFailed` when the tag does not match (altered data, wrong key, nonce or
    /// AAD) or `sealed` is shorter than a tag; `CryptoError.invalidLength` for a bad key or nonce size.
    public static func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8] = []) throws(CryptoError)
        -> [UInt8]
    {
        guard sealed.count >= tagLength else { throw .authenticationFailed }
        let cipher = try Context(key: key, nonce: nonce, encrypt: false)
        try cipher.addAAD(aad)
        let ciphertext = Array(sealed.dropLast(tagLength))
        var tag = Array(sealed.suffix(tagLength))
        let output = try cipher.update(ciphertext)
        let status = EVP_CIPHER_CTX_ctrl(cipher.pointer, EVP_CTRL_AEAD_SET_TAG, Int32(tagLength), &tag)
        try OpenSSL.check(status, "EVP_CIPHER_CTX_ctrl(SET_TAG)")
        var finalLength: Int32 = 0
        var scratch = [UInt8](repeating: 0, count: 16)
        guard EVP_DecryptFinal_ex(cipher.pointer, &scratch, &finalLength) == 1 else {
            ERR_clear_error()
            throw .authenticationFailed
        }
        return output
    }

    /// The 12-byte nonce HAP builds from an 8-byte ASCII label such as "PS-Msg05": four zero bytes, then the
    /// label (docs/hap-notes.md §1.3). Longer labels are cut to 8 bytes, shorter ones padded with zeros.
    public static func nonce(label: String) -> [UInt8] {
        let bytes = Array(label.utf8.prefix(8))
        return [0, 0, 0, 0] + bytes + [UInt8](repeating: 0, count: 8 - bytes.count)
    }

    /// One `EVP_CIPHER_CTX`, freed when the operation ends.
    private final class Context {
        let pointer: OpaquePointer
        let encrypt: Bool

        init(key: [UInt8], nonce: [UInt8], encrypt: Bool) throws(CryptoError) {
            try OpenSSL.requireLength(key, keyLength, "ChaCha20-Poly1305 key")
            try OpenSSL.requireLength(nonce, nonceLength, "ChaCha20-Poly1305 nonce")
            pointer = try OpenSSL.check(EVP_CIPHER_CTX_new(), "EVP_CIPHER_CTX_new")
            self.encrypt = encrypt
            let status = key.withUnsafeBufferPointer { k in
                nonce.withUnsafeBufferPointer { n in
                    EVP_CipherInit_ex(
                        pointer, EVP_chacha20_poly1305(), nil, k.baseAddress, n.baseAddress, encrypt ? 1 : 0)
                }
            }
            try OpenSSL.check(status, "EVP_CipherInit_ex(chacha20-poly1305)")
        }

        deinit { EVP_CIPHER_CTX_free(pointer) }

        func addAAD(_ aad: [UInt8]) throws(CryptoError) {
            guard !aad.isEmpty else { return }
            var ignored: Int32 = 0
            let status = aad.withUnsafeBufferPointer {
                EVP_CipherUpdate(pointer, nil, &ignored, $0.baseAddress, Int32(clamping: $0.count))
            }
            try OpenSSL.check(status, "EVP_CipherUpdate(AAD)")
        }

        func update(_ input: [UInt8]) throws(CryptoError) -> [UInt8] {
            guard !input.isEmpty else { return [] }
            var output = [UInt8](repeating: 0, count: input.count)
            var length: Int32 = 0
            let status = input.withUnsafeBufferPointer {
                EVP_CipherUpdate(pointer, &output, &length, $0.baseAddress, Int32(clamping: $0.count))
            }
            try OpenSSL.check(status, "EVP_CipherUpdate")
            return Array(output.prefix(Int(length)))
        }

        func finish() throws(CryptoError) {
            var scratch = [UInt8](repeating: 0, count: 16)
            var length: Int32 = 0
            try OpenSSL.check(EVP_CipherFinal_ex(pointer, &scratch, &length), "EVP_CipherFinal_ex")
        }
    }
}
