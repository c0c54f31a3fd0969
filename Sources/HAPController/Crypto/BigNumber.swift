import COpenSSL

/// An owned OpenSSL `BIGNUM`, cleared and freed on deinit. Used only inside SRP computations; values enter
/// and leave as big-endian byte strings so leading zeros are decided by the caller (`bytes(paddedTo:)`).
final class BigNumber {
    let pointer: OpaquePointer

    private init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { BN_clear_free(pointer) }

    /// A new zero value.
    convenience init() throws(CryptoError) {
        self.init(try OpenSSL.check(BN_new(), "BN_new"))
    }

    /// The value of big-endian `bytes` (empty = 0). `secret` marks it for constant-time exponentiation.
    convenience init(bytes: [UInt8], secret: Bool = false) throws(CryptoError) {
        let value = bytes.withNonNullPointer { BN_bin2bn($0, Int32(clamping: $1), nil) }
        self.init(try OpenSSL.check(value, "BN_bin2bn"))
        if secret { BN_set_flags(pointer, BN_FLG_CONSTTIME) }
    }

    var isZero: Bool { BN_is_zero(pointer) == 1 }

    /// The minimal big-endian bytes (no leading zeros; empty for 0).
    func bytes() -> [UInt8] {
        let count = Int(hap2mqtt_bn_num_bytes(pointer))
        guard count > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: count)
        _ = BN_bn2bin(pointer, &out)
        return out
    }

    /// Big-endian bytes left-padded with zeros to `length`. Throws if the value needs more bytes.
    func bytes(paddedTo length: Int) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        guard BN_bn2binpad(pointer, &out, Int32(clamping: length)) == Int32(clamping: length) else {
            throw OpenSSL.failure("BN_bn2binpad")
        }
        return out
    }
}

/// A `BN_CTX` scratch area for one computation.
final class BigNumberContext {
    let pointer: OpaquePointer

    init() throws(CryptoError) { pointer = try OpenSSL.check(BN_CTX_secure_new(), "BN_CTX_secure_new") }

    deinit { BN_CTX_free(pointer) }

    /// (base ^ exponent) mod modulus.
    func modExp(_ base: BigNumber, _ exponent: BigNumber, _ modulus: BigNumber) throws(CryptoError) -> BigNumber {
        let result = try BigNumber()
        try OpenSSL.check(
            BN_mod_exp(result.pointer, base.pointer, exponent.pointer, modulus.pointer, pointer), "BN_mod_exp")
        return result
    }

    /// (a · b) mod modulus.
    func modMul(_ a: BigNumber, _ b: BigNumber, _ modulus: BigNumber) throws(CryptoError) -> BigNumber {
        let result = try BigNumber()
        try OpenSSL.check(BN_mod_mul(result.pointer, a.pointer, b.pointer, modulus.pointer, pointer), "BN_mod_mul")
        return result
    }

    /// (a − b) mod modulus, in [0, modulus).
    func modSub(_ a: BigNumber, _ b: BigNumber, _ modulus: BigNumber) throws(CryptoError) -> BigNumber {
        let result = try BigNumber()
        try OpenSSL.check(BN_mod_sub(result.pointer, a.pointer, b.pointer, modulus.pointer, pointer), "BN_mod_sub")
        return result
    }

    /// a mod modulus, in [0, modulus).
    func mod(_ a: BigNumber, _ modulus: BigNumber) throws(CryptoError) -> BigNumber {
        let result = try BigNumber()
        try OpenSSL.check(BN_nnmod(result.pointer, a.pointer, modulus.pointer, pointer), "BN_nnmod")
        return result
    }

    /// a · b + c (no reduction), marked secret for constant-time use as an exponent.
    func mulAdd(_ a: BigNumber, _ b: BigNumber, _ c: BigNumber) throws(CryptoError) -> BigNumber {
        let product = try BigNumber()
        try OpenSSL.check(BN_mul(product.pointer, a.pointer, b.pointer, pointer), "BN_mul")
        let result = try BigNumber()
        try OpenSSL.check(BN_add(result.pointer, product.pointer, c.pointer), "BN_add")
        BN_set_flags(result.pointer, BN_FLG_CONSTTIME)
        return result
    }
}
