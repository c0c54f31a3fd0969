/// The client side of SRP-6a as HAP pair-setup uses it (HAP spec §5.6.2–§5.6.4, RFC 5054 with the 3072-bit
/// group, g = 5, SHA-512; formulas in docs/hap-notes.md §1.4):
///
/// - k = H(N ‖ PAD(g)), x = H(s ‖ H(I ‖ ":" ‖ P)), A = g^a mod N, u = H(PAD(A) ‖ PAD(B))
/// - S = (B − k·g^x)^(a + u·x) mod N, K = H(PAD(S))
/// - M1 = H(H(N) XOR H(g) ‖ H(I) ‖ s ‖ A ‖ B ‖ K), with H(g) the hash of the single byte 0x05 and B the bytes
///   exactly as received; M2 = H(PAD(A) ‖ M1 ‖ K)
///
/// Values stay byte strings, so leading zeros are never lost. With a random private value the client draws a
/// new `a` until A, PAD(S), K and M1 all start with a non-zero byte: then padded and unpadded encodings are
/// the same bytes, and servers that hash unpadded values (HAP-python) compute the same proofs.
///
/// Holds the session key; `description` never shows secrets.
public struct SRPClient: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The SRP user name HAP pair-setup uses.
    public static let pairSetupUsername = "Pair-Setup"

    /// A, the client's public value, padded to 384 bytes: send it as the PublicKey of pair-setup M3.
    public let publicKey: [UInt8]
    /// M1, the client's 64-byte proof: send it as the Proof of pair-setup M3.
    public let proof: [UInt8]
    /// K, the 64-byte shared session key: the HKDF input of pair-setup M5/M6.
    public let sessionKey: [UInt8]
    /// M2, the proof the server must answer with (pair-setup M4).
    let expectedServerProof: [UInt8]
    /// Intermediate values kept for known-answer tests: k, x, u (64 bytes each) and PAD(S) (384 bytes).
    let multiplier: [UInt8]
    let passwordHash: [UInt8]
    let scramblingParameter: [UInt8]
    let premasterSecret: [UInt8]

    /// Runs the client computation for the server's `salt` and public value `serverPublicKey` (B as received,
    /// at most 384 bytes, padded or not).
    ///
    /// - Parameters:
    ///   - username: I; HAP uses "Pair-Setup".
    ///   - password: P; for HAP the setup code with dashes ("123-45-678").
    ///   - privateKey: a fixed private value `a` (big-endian), only for known-answer tests. Nil (the default)
    ///     draws 32 random bytes, again until the leading-byte rule above holds.
    /// - Throws: `CryptoError.invalidPublicKey` when B ≡ 0 (mod N), B is longer than 384 bytes, u = 0 or the
    ///   shared secret is 0; `CryptoError.randomUnavailable`; `CryptoError.openSSL`.
    public init(
        username: String = pairSetupUsername, password: String, salt: [UInt8], serverPublicKey: [UInt8],
        privateKey: [UInt8]? = nil
    ) throws(CryptoError) {
        guard serverPublicKey.count <= SRPGroup.length else {
            throw .invalidPublicKey("SRP server value B is \(serverPublicKey.count) bytes, more than 384")
        }
        let context = try BigNumberContext()
        let n = try BigNumber(bytes: SRPGroup.modulus)
        let g = try BigNumber(bytes: SRPGroup.generator)
        let b = try context.mod(BigNumber(bytes: serverPublicKey), n)
        guard !b.isZero else { throw .invalidPublicKey("SRP server value B is 0 mod N") }

        let identity = Array(username.utf8)
        let k = try SHA512.hash(SRPGroup.modulus, SRPGroup.pad(SRPGroup.generator))
        let x = try SHA512.hash(salt, SHA512.hash(identity, Array(":".utf8), Array(password.utf8)))
        let xValue = try BigNumber(bytes: x, secret: true)
        // B − k·g^x does not depend on a: compute it once for all draws.
        let kgx = try context.modMul(BigNumber(bytes: k), context.modExp(g, xValue, n), n)
        let base = try context.modSub(b, kgx, n)
        guard !base.isZero else { throw .invalidPublicKey("SRP server value B gives a shared secret of 0") }
        let groupHash = try zip(SHA512.hash(SRPGroup.modulus), SHA512.hash(SRPGroup.generator)).map { $0 ^ $1 }
        let identityHash = try SHA512.hash(identity)
        let paddedB = SRPGroup.pad(serverPublicKey)

        // Each draw fails the leading-byte rule with probability ≈ 4/256; 64 failures in a row mean the
        // server's values are degenerate, not bad luck.
        for _ in 0..<(privateKey == nil ? 64 : 1) {
            let drawn: [UInt8]
            if let privateKey { drawn = privateKey } else { drawn = try SecureRandom.bytes(32) }
            let a = try BigNumber(bytes: drawn, secret: true)
            let publicA = try context.modExp(g, a, n).bytes(paddedTo: SRPGroup.length)
            let u = try SHA512.hash(publicA, paddedB)
            let uValue = try BigNumber(bytes: u)
            guard !uValue.isZero else { throw .invalidPublicKey("SRP scrambling parameter u is 0") }
            let s = try context.modExp(base, context.mulAdd(uValue, xValue, a), n).bytes(paddedTo: SRPGroup.length)
            let key = try SHA512.hash(s)
            let m1 = try SHA512.hash(groupHash, identityHash, salt, publicA, serverPublicKey, key)
            let unambiguous = publicA[0] != 0 && s[0] != 0 && key[0] != 0 && m1[0] != 0
            guard unambiguous || privateKey != nil else { continue }
            publicKey = publicA
            proof = m1
            sessionKey = key
            expectedServerProof = try SHA512.hash(publicA, m1, key)
            multiplier = k
            passwordHash = x
            scramblingParameter = u
            premasterSecret = s
            return
        }
        throw .invalidPublicKey("SRP server values never gave an unambiguous shared secret")
    }

    /// True when `serverProof` equals M2 = H(PAD(A) ‖ M1 ‖ K); compared in constant time.
    public func isValidServerProof(_ serverProof: [UInt8]) -> Bool {
        ConstantTime.equals(serverProof, expectedServerProof)
    }

    public var description: String { "SRPClient(A: \(Hex.encode(Array(publicKey.prefix(8))))…)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["publicKey": Hex.encode(publicKey)]) }
}
