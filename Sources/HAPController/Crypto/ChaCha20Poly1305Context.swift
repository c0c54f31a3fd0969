import COpenSSL
import Synchronization

/// One ChaCha20-Poly1305 key set up in libcrypto once, for many messages in one direction: the frames of a
/// HAP session (`HAPSessionCipher`) and the one-shot `ChaCha20Poly1305.seal`/`open`.
///
/// Each message only sets its nonce on the kept `EVP_CIPHER_CTX`, which resets the AEAD state, so no
/// message depends on the one before. A context made per frame would cost an allocation, a cipher look-up
/// in OpenSSL 3's provider tables and the key schedule for every frame (hap2mqtt-bench hap).
/// The messages are read from and written to the caller's buffers, without copies.
///
/// `@unchecked Sendable`: the handle is used only under `lock` (copies of a `HAPSessionCipher` share their
/// context, and a libcrypto context must not be used by two threads at once, openssl-threads(7)), and freed
/// when the last owner lets go.
final class ChaCha20Poly1305Context: @unchecked Sendable {
    private let pointer: OpaquePointer
    private let lock = Mutex(())
    private let encrypts: Bool

    /// A context that encrypts (`seal`) or decrypts (`open`) with `key`.
    /// - Throws: `CryptoError.invalidLength` for a key that is not 32 bytes, `.openSSL` if libcrypto fails.
    init(key: [UInt8], encrypt: Bool) throws(CryptoError) {
        try OpenSSL.requireLength(key, ChaCha20Poly1305.keyLength, "ChaCha20-Poly1305 key")
        let pointer = try OpenSSL.check(EVP_CIPHER_CTX_new(), "EVP_CIPHER_CTX_new")
        let status = key.withUnsafeBufferPointer {
            EVP_CipherInit_ex(pointer, EVP_chacha20_poly1305(), nil, $0.baseAddress, nil, encrypt ? 1 : 0)
        }
        guard status == 1 else {
            EVP_CIPHER_CTX_free(pointer)
            throw OpenSSL.failure("EVP_CipherInit_ex(chacha20-poly1305)")
        }
        self.pointer = pointer
        encrypts = encrypt
    }

    deinit { EVP_CIPHER_CTX_free(pointer) }

    /// Appends `plaintext` encrypted and its 16-byte tag over `aad` and the ciphertext to `output`.
    /// - Throws: `CryptoError.invalidLength` for a nonce that is not 12 bytes, `.openSSL` if libcrypto fails.
    func seal(
        _ plaintext: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer,
        appendingTo output: inout [UInt8]
    ) throws(CryptoError) {
        precondition(encrypts, "a decrypting context cannot seal")
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: plaintext.count + ChaCha20Poly1305.tagLength))
        do throws(CryptoError) {
            try lock.withLock { _ throws(CryptoError) in
                let ctx = pointer
                try Self.begin(ctx, nonce: nonce, aad: aad)
                try output.withMutableBytes { out throws(CryptoError) in
                    let text = UnsafeMutableRawBufferPointer(rebasing: out[start..<(start + plaintext.count)])
                    try Self.update(ctx, plaintext, into: text)
                    var length: Int32 = 0
                    var scratch = (UInt64(0), UInt64(0))
                    try OpenSSL.check(EVP_CipherFinal_ex(ctx, &scratch, &length), "EVP_CipherFinal_ex")
                    let tag = out.baseAddress! + start + plaintext.count
                    let status = EVP_CIPHER_CTX_ctrl(
                        ctx, EVP_CTRL_AEAD_GET_TAG, Int32(ChaCha20Poly1305.tagLength), tag)
                    try OpenSSL.check(status, "EVP_CIPHER_CTX_ctrl(GET_TAG)")
                }
            }
        } catch {
            output.removeSubrange(start...)
            throw error
        }
    }

    /// Checks `tag` against `aad` and `ciphertext` and appends the plaintext to `output`; on any failure
    /// `output` is left as it was.
    /// - Throws: `CryptoError.authenticationFailed` when the tag does not match (altered data, wrong key,
    ///   nonce or AAD) or is not 16 bytes; `.invalidLength` for a nonce that is not 12 bytes; `.openSSL` if
    ///   libcrypto fails.
    func open(
        _ ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
        aad: UnsafeRawBufferPointer, appendingTo output: inout [UInt8]
    ) throws(CryptoError) {
        precondition(!encrypts, "an encrypting context cannot open")
        guard tag.count == ChaCha20Poly1305.tagLength else { throw .authenticationFailed }
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: ciphertext.count))
        do throws(CryptoError) {
            try lock.withLock { _ throws(CryptoError) in
                let ctx = pointer
                try Self.begin(ctx, nonce: nonce, aad: aad)
                try output.withMutableBytes { out throws(CryptoError) in
                    try Self.update(ctx, ciphertext, into: UnsafeMutableRawBufferPointer(rebasing: out[start...]))
                }
                let status = EVP_CIPHER_CTX_ctrl(
                    ctx, EVP_CTRL_AEAD_SET_TAG, Int32(ChaCha20Poly1305.tagLength),
                    UnsafeMutableRawPointer(mutating: tag.baseAddress))
                try OpenSSL.check(status, "EVP_CIPHER_CTX_ctrl(SET_TAG)")
                var length: Int32 = 0
                var scratch = (UInt64(0), UInt64(0))
                guard EVP_CipherFinal_ex(ctx, &scratch, &length) == 1 else {
                    ERR_clear_error()
                    throw .authenticationFailed
                }
            }
        } catch {
            output.removeSubrange(start...)
            throw error
        }
    }

    /// Sets the nonce (which starts a new message under the kept key) and authenticates `aad`.
    private static func begin(_ ctx: OpaquePointer, nonce: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer)
        throws(CryptoError)
    {
        guard nonce.count == ChaCha20Poly1305.nonceLength else {
            throw .invalidLength(
                what: "ChaCha20-Poly1305 nonce", expected: ChaCha20Poly1305.nonceLength, actual: nonce.count)
        }
        let status = EVP_CipherInit_ex(ctx, nil, nil, nil, nonce.baseAddress?.assumingMemoryBound(to: UInt8.self), -1)
        try OpenSSL.check(status, "EVP_CipherInit_ex(nonce)")
        guard !aad.isEmpty else { return }
        var ignored: Int32 = 0
        let added = EVP_CipherUpdate(
            ctx, nil, &ignored, aad.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(clamping: aad.count))
        try OpenSSL.check(added, "EVP_CipherUpdate(AAD)")
    }

    /// Encrypts or decrypts `input` into `output` (the same length; a stream cipher keeps no bytes back).
    private static func update(
        _ ctx: OpaquePointer, _ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    )
        throws(CryptoError)
    {
        guard !input.isEmpty else { return }
        var length: Int32 = 0
        let status = EVP_CipherUpdate(
            ctx, output.baseAddress?.assumingMemoryBound(to: UInt8.self), &length,
            input.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(clamping: input.count))
        try OpenSSL.check(status, "EVP_CipherUpdate")
        guard Int(length) == input.count else {
            throw .openSSL(function: "EVP_CipherUpdate", detail: "\(length) of \(input.count) bytes")
        }
    }
}
