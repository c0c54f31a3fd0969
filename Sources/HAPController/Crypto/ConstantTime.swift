import COpenSSL

/// Comparison of secrets whose running time does not depend on where they differ.
public enum ConstantTime {
    /// True when `a` and `b` have the same length and the same bytes (`CRYPTO_memcmp`). The length itself is
    /// not secret (proofs and tags have fixed sizes).
    public static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { pa in
            b.withUnsafeBytes { pb in CRYPTO_memcmp(pa.baseAddress, pb.baseAddress, pa.count) == 0 }
        }
    }
}
