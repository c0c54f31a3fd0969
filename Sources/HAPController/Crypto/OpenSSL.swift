import COpenSSL

/// Small helpers for calling libcrypto: status checks that turn a failed call into `CryptoError.openSSL`
/// with the text of OpenSSL's error queue, and owners that free handles on every path.
enum OpenSSL {
    /// Throws `CryptoError.openSSL` unless `status` is 1 (libcrypto's success value).
    static func check(_ status: Int32, _ function: String) throws(CryptoError) {
        guard status == 1 else { throw failure(function) }
    }

    /// Returns `pointer`, or throws `CryptoError.openSSL` when libcrypto returned NULL.
    static func check<P>(_ pointer: P?, _ function: String) throws(CryptoError) -> P {
        guard let pointer else { throw failure(function) }
        return pointer
    }

    /// The error for a failed `function`, draining OpenSSL's thread-local error queue so that a later
    /// failure does not report this one.
    static func failure(_ function: String) -> CryptoError {
        var detail = ""
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            detail = detail.isEmpty ? text : detail + "; " + text
        }
        return .openSSL(function: function, detail: detail)
    }

    /// Throws `CryptoError.invalidLength` unless `bytes` has exactly `length` bytes.
    static func requireLength(_ bytes: [UInt8], _ length: Int, _ what: String) throws(CryptoError) {
        guard bytes.count == length else {
            throw .invalidLength(what: what, expected: length, actual: bytes.count)
        }
    }
}

/// Owns an `EVP_PKEY` and frees it when the owner goes away. The key types keep theirs, so that a key is
/// made from its raw bytes (a scalar multiplication, 25 µs here) once rather than for every use.
///
/// `@unchecked Sendable`: the key is never changed after it is made, and libcrypto allows an unchanging
/// `EVP_PKEY` to be used from several threads at once (its reference count is atomic; OpenSSL's
/// threading rules, openssl-threads(7)).
final class PKey: @unchecked Sendable {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { EVP_PKEY_free(pointer) }

    /// A key from raw private bytes, for the algorithm named `algorithm` ("X25519", "ED25519").
    static func privateKey(_ algorithm: String, raw: [UInt8]) throws(CryptoError) -> PKey {
        let key = raw.withUnsafeBufferPointer {
            EVP_PKEY_new_raw_private_key_ex(nil, algorithm, nil, $0.baseAddress, $0.count)
        }
        return PKey(try OpenSSL.check(key, "EVP_PKEY_new_raw_private_key_ex(\(algorithm))"))
    }

    /// A key from raw public bytes, for the algorithm named `algorithm` ("X25519", "ED25519").
    static func publicKey(_ algorithm: String, raw: [UInt8]) throws(CryptoError) -> PKey {
        let key = raw.withUnsafeBufferPointer {
            EVP_PKEY_new_raw_public_key_ex(nil, algorithm, nil, $0.baseAddress, $0.count)
        }
        return PKey(try OpenSSL.check(key, "EVP_PKEY_new_raw_public_key_ex(\(algorithm))"))
    }

    /// The raw public key bytes (32 for X25519 and Ed25519).
    func rawPublicKey() throws(CryptoError) -> [UInt8] {
        var length = 0
        try OpenSSL.check(EVP_PKEY_get_raw_public_key(pointer, nil, &length), "EVP_PKEY_get_raw_public_key")
        var bytes = [UInt8](repeating: 0, count: length)
        try OpenSSL.check(EVP_PKEY_get_raw_public_key(pointer, &bytes, &length), "EVP_PKEY_get_raw_public_key")
        return Array(bytes.prefix(length))
    }
}

extension Array where Element == UInt8 {
    /// Calls `body` with a non-NULL pointer to the bytes and their count, also for an empty array (which
    /// has no base address, while some libcrypto calls reject NULL even with a length of 0).
    func withNonNullPointer<R>(_ body: (UnsafePointer<UInt8>, Int) -> R) -> R {
        let storage = isEmpty ? [0] : self
        return storage.withUnsafeBufferPointer { buffer in
            // `storage` is never empty, so its base address exists.
            guard let base = buffer.baseAddress else { preconditionFailure("non-empty array without storage") }
            return body(base, count)
        }
    }
}
