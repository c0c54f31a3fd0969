@testable import HAPController

/// The accessory (server) side of HAP's SRP-6a, written for tests from RFC 5054 §2.5–2.6 and docs/hap-notes.md
/// §1.4 with the library's BIGNUM and hash primitives:
/// v = g^x, B = (k·v + g^b) mod N, u = H(PAD(A) ‖ PAD(B)), S = (A·v^u)^b mod N.
///
/// `.padded` hashes PAD(S) and sends B padded to 384 bytes, like fast-srp / HAP-NodeJS. `.unpadded` is
/// HAP-python's `pyhap/hsrp.py`: it sends B without leading zeros, hashes S without leading zeros, strips the
/// leading zeros of K too, and uses those shortened byte strings in M1, M2 and as the session key.
struct TestSRPServer {
    enum Encoding { case padded, unpadded }

    let encoding: Encoding
    let username: [UInt8]
    let salt: [UInt8]
    /// B as sent.
    let publicKey: [UInt8]
    private let verifier: [UInt8]
    private let privateKey: [UInt8]
    /// K as this server uses it, set by `verify` when the client's proof matched.
    private(set) var sessionKey: [UInt8] = []

    init(username: String = "Pair-Setup", password: String, salt: [UInt8], privateKey: [UInt8], encoding: Encoding)
        throws
    {
        self.encoding = encoding
        self.username = Array(username.utf8)
        self.salt = salt
        self.privateKey = privateKey
        let context = try BigNumberContext()
        let n = try BigNumber(bytes: SRPGroup.modulus)
        let g = try BigNumber(bytes: SRPGroup.generator)
        let x = try SHA512.hash(salt, SHA512.hash(self.username, Array(":".utf8), Array(password.utf8)))
        let v = try context.modExp(g, BigNumber(bytes: x), n)
        verifier = v.bytes()
        let k = try BigNumber(bytes: SHA512.hash(SRPGroup.modulus, SRPGroup.pad(SRPGroup.generator)))
        let kv = try context.modMul(k, v, n)
        let gb = try context.modExp(g, BigNumber(bytes: privateKey), n)
        let zero = try BigNumber()
        // (k·v + g^b) mod N as k·v − (−g^b): BigNumberContext offers modSub, not modAdd.
        let b = try context.modSub(kv, context.modSub(zero, gb, n), n)
        publicKey = encoding == .padded ? try b.bytes(paddedTo: SRPGroup.length) : b.bytes()
    }

    /// Checks the client's A and M1. Returns M2 when M1 matches, nil when it does not (HAP's Error=2 at M4).
    mutating func verify(clientPublicKey a: [UInt8], clientProof: [UInt8]) throws -> [UInt8]? {
        let context = try BigNumberContext()
        let n = try BigNumber(bytes: SRPGroup.modulus)
        let aValue = try BigNumber(bytes: a)
        let u = try BigNumber(bytes: SHA512.hash(SRPGroup.pad(a), SRPGroup.pad(publicKey)))
        let avu = try context.modMul(aValue, context.modExp(BigNumber(bytes: verifier), u, n), n)
        let s = try context.modExp(avu, BigNumber(bytes: privateKey), n)
        let key: [UInt8]
        switch encoding {
        case .padded: key = try SHA512.hash(s.bytes(paddedTo: SRPGroup.length))
        case .unpadded: key = Array(try SHA512.hash(s.bytes()).drop { $0 == 0 })
        }
        let groupHash = try zip(SHA512.hash(SRPGroup.modulus), SHA512.hash(SRPGroup.generator)).map { $0 ^ $1 }
        let m1 = try SHA512.hash(groupHash, SHA512.hash(username), salt, a, publicKey, key)
        guard m1 == clientProof else { return nil }
        sessionKey = key
        return try SHA512.hash(a, m1, key)
    }
}
