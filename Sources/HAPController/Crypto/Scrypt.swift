import COpenSSL

/// The scrypt password-based key derivation of RFC 7914 (libcrypto's `EVP_PBE_scrypt`): memory-hard, so
/// that guessing the passphrase of a stolen backup costs memory as well as time for every guess.
public enum Scrypt {
    /// The cost parameters: N = 2^`logN` (CPU and memory), `r` (block size), `p` (parallelism). Memory used
    /// is about 128 · r · N bytes.
    public struct Parameters: Sendable, Hashable, CustomStringConvertible {
        /// log2 of N, the CPU/memory cost.
        public var logN: UInt8
        /// The block size factor.
        public var r: UInt32
        /// The parallelism factor.
        public var p: UInt32

        /// N = 2^17, r = 8, p = 1: 128 MiB and well under a second on a Raspberry Pi 4, the work factor
        /// OWASP's password storage advice gives for scrypt.
        public static let standard = Parameters(logN: 17, r: 8, p: 1)

        /// The most memory a derivation may take, 1 GiB: parameters read from a file are checked against it
        /// before anything is allocated, so a forged header cannot make a restore exhaust the machine.
        public static let maximumMemory: UInt64 = 1 << 30

        /// About the bytes a derivation takes (128 · r · N, plus 128 · r · p for the parallel blocks).
        public var memory: UInt64 {
            guard logN < 63 else { return .max }
            let (blocks, overflow) = (UInt64(1) << UInt64(logN)).addingReportingOverflow(UInt64(p))
            let (bytes, overflow2) = blocks.multipliedReportingOverflow(by: 128 &* UInt64(r))
            return overflow || overflow2 ? .max : bytes
        }

        /// Whether libcrypto can run them within `maximumMemory`: N ≥ 2, r and p ≥ 1, r · p < 2^30 (RFC 7914 §2).
        public var isUsable: Bool {
            logN >= 1 && logN < 64 && r >= 1 && p >= 1 && UInt64(r) * UInt64(p) < (1 << 30)
                && memory <= Self.maximumMemory
        }

        /// `N=2^17 r=8 p=1`.
        public var description: String { "N=2^\(logN) r=\(r) p=\(p)" }
    }

    /// The `length`-byte key derived from `passphrase` and `salt` with `parameters`.
    /// - Throws: `CryptoError.openSSL` when libcrypto refuses (unusable parameters, no memory).
    public static func derive(passphrase: [UInt8], salt: [UInt8], parameters: Parameters, length: Int)
        throws(CryptoError) -> [UInt8]
    {
        guard parameters.isUsable else {
            throw .openSSL(function: "EVP_PBE_scrypt", detail: "unusable parameters \(parameters)")
        }
        var key = [UInt8](repeating: 0, count: length)
        // A slack of 1 MiB above the blocks, for libcrypto's own bookkeeping.
        let maximumMemory = parameters.memory + (1 << 20)
        let status = passphrase.withUnsafeBufferPointer { pass in
            salt.withUnsafeBufferPointer { salt in
                key.withUnsafeMutableBufferPointer { out in
                    pass.withMemoryRebound(to: CChar.self) { pass in
                        EVP_PBE_scrypt(
                            pass.baseAddress, pass.count, salt.baseAddress, salt.count,
                            UInt64(1) << UInt64(parameters.logN),
                            UInt64(parameters.r), UInt64(parameters.p), maximumMemory, out.baseAddress, out.count)
                    }
                }
            }
        }
        try OpenSSL.check(status, "EVP_PBE_scrypt")
        return key
    }
}
