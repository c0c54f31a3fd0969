import Testing

@testable import HAPController

@Suite("Crypto primitives: known answers")
struct PrimitiveVectorTests {
    @Test("SHA-512 of \"abc\" is the FIPS 180-2 value, also when hashed in parts")
    func sha512() throws {
        let expected =
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
            + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
        #expect(hex(try SHA512.hash(Array("abc".utf8))) == expected)
        #expect(hex(try SHA512.hash([0x61], [], [0x62, 0x63])) == expected)
    }

    // RFC 5869 gives only SHA-256 and SHA-1 outputs. These are its inputs of test cases 1–3 run through
    // HKDF-SHA512; the outputs were computed on this machine twice, independently: with Python's hmac/hashlib
    // (extract and expand written out by hand) and with the `cryptography` package's HKDF, which agreed.
    @Test(
        "HKDF-SHA512 with the inputs of RFC 5869 test cases 1–3",
        arguments: [
            (
                hex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"), hex("000102030405060708090a0b0c"),
                hex("f0f1f2f3f4f5f6f7f8f9"),
                "832390086cda71fb47625bb5ceb168e4c8e26a1a16ed34d9fc7fe92c1481579338da362cb8d9f925d7cb"
            ),
            (
                Array(0x00...0x4f), Array(0x60...0xaf), Array(0xb0...0xff),
                "ce6c97192805b346e6161e821ed165673b84f400a2b514b2fe23d84cd189ddf1b695b48cbd1c8388441137b3ce28f16a"
                    + "a64ba33ba466b24df6cfcb021ecff235f6a2056ce3af1de44d572097a8505d9e7a93"
            ),
            (
                hex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"), [], [],
                "f5fa02b18298a72a8c23898a8703472c6eb179dc204c03425c970e3b164bf90fff22d04836d0e2343bac"
            ),
        ] as [([UInt8], [UInt8], [UInt8], String)])
    func hkdf(key: [UInt8], salt: [UInt8], info: [UInt8], expected: String) throws {
        let output = try HKDF.sha512(key: key, salt: salt, info: info, length: expected.count / 2)
        #expect(hex(output) == expected)
    }

    // HAP's derivation shapes (ASCII salt and info, 32 bytes) over the IKM 00 01 … 1f, computed with Python's
    // `cryptography` HKDF(SHA512) and cross-checked with a hand-written hmac/hashlib HKDF.
    @Test(
        "HKDF-SHA512 with HAP's salt and info strings",
        arguments: [
            (
                "Control-Salt", "Control-Write-Encryption-Key",
                "c3ca130c7033dbe5e7ff7f91d117ead869bac476994c7a48ca170c111136ed96"
            ),
            (
                "Control-Salt", "Control-Read-Encryption-Key",
                "c09403ef8aa6c5045cbd8cf9bf3e665b2caed623af2be0e87c8f80f519914d3d"
            ),
            (
                "Pair-Setup-Encrypt-Salt", "Pair-Setup-Encrypt-Info",
                "52890146745a52e57b82b859a7a3679c7f3d40bb295b055a0c8fa8af92a3746d"
            ),
        ])
    func hkdfHAP(salt: String, info: String, expected: String) throws {
        #expect(hex(try HKDF.sha512(key: Array(0...31), salt: salt, info: info)) == expected)
    }

    @Test("HKDF refuses an output length of 0 or more than 255 blocks")
    func hkdfLength() {
        #expect(throws: CryptoError.invalidOutputLength(0)) { try HKDF.sha512(key: [1], salt: [], info: [], length: 0) }
        #expect(throws: CryptoError.self) { try HKDF.sha512(key: [1], salt: [], info: [], length: 255 * 64 + 1) }
    }

    static let sunscreen = Array(
        ("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for "
            + "the future, sunscreen would be it.").utf8)
    static let aeadKey: [UInt8] = Array(0x80...0x9f)
    static let aeadNonce = hex("07000000 40414243 44454647")
    static let aeadAAD = hex("50515253 c0c1c2c3 c4c5c6c7")
    static let aeadCiphertext = hex(
        """
        d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b
        1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc
        3ff4def08e4b7a9de576d26586cec64b6116
        """)
    static let aeadTag = hex("1ae10b594f09e26a7e902ecbd0600691")

    @Test("ChaCha20-Poly1305 seals and opens the RFC 8439 §2.8.2 vector")
    func aeadVector() throws {
        let sealed = try ChaCha20Poly1305.seal(
            Self.sunscreen, key: Self.aeadKey, nonce: Self.aeadNonce, aad: Self.aeadAAD)
        #expect(sealed == Self.aeadCiphertext + Self.aeadTag)
        let opened = try ChaCha20Poly1305.open(sealed, key: Self.aeadKey, nonce: Self.aeadNonce, aad: Self.aeadAAD)
        #expect(opened == Self.sunscreen)
    }

    @Test("ChaCha20-Poly1305 refuses a flipped bit, other AAD, a short input and wrong sizes")
    func aeadFailures() throws {
        var sealed = Self.aeadCiphertext + Self.aeadTag
        sealed[10] ^= 0x01
        #expect(throws: CryptoError.authenticationFailed) {
            try ChaCha20Poly1305.open(sealed, key: Self.aeadKey, nonce: Self.aeadNonce, aad: Self.aeadAAD)
        }
        #expect(throws: CryptoError.authenticationFailed) {
            try ChaCha20Poly1305.open(
                Self.aeadCiphertext + Self.aeadTag, key: Self.aeadKey, nonce: Self.aeadNonce, aad: [])
        }
        #expect(throws: CryptoError.authenticationFailed) {
            try ChaCha20Poly1305.open(Array(Self.aeadTag.prefix(15)), key: Self.aeadKey, nonce: Self.aeadNonce)
        }
        #expect(throws: CryptoError.invalidLength(what: "ChaCha20-Poly1305 nonce", expected: 12, actual: 8)) {
            try ChaCha20Poly1305.seal([1], key: Self.aeadKey, nonce: Array(Self.aeadNonce.suffix(8)))
        }
        #expect(throws: CryptoError.invalidLength(what: "ChaCha20-Poly1305 key", expected: 32, actual: 31)) {
            try ChaCha20Poly1305.seal([1], key: Array(Self.aeadKey.dropLast()), nonce: Self.aeadNonce)
        }
    }

    @Test("an empty plaintext seals to a bare tag and opens again; HAP nonces are 4 zero bytes and the label")
    func aeadEmptyAndNonce() throws {
        let nonce = ChaCha20Poly1305.nonce(label: "PS-Msg05")
        #expect(nonce == [0, 0, 0, 0] + Array("PS-Msg05".utf8))
        let sealed = try ChaCha20Poly1305.seal([], key: Self.aeadKey, nonce: nonce)
        #expect(sealed.count == 16)
        #expect(try ChaCha20Poly1305.open(sealed, key: Self.aeadKey, nonce: nonce) == [])
    }

    @Test(
        "X25519 scalar multiplication matches RFC 7748 §5.2",
        arguments: [
            (
                "a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
                "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
                "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"
            ),
            (
                "4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
                "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493",
                "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957"
            ),
        ])
    func x25519Scalar(scalar: String, u: String, expected: String) throws {
        let key = try X25519PrivateKey(rawRepresentation: hex(scalar))
        #expect(hex(try key.sharedSecret(with: hex(u))) == expected)
    }

    @Test("X25519 Diffie-Hellman matches RFC 7748 §6.1 from both sides")
    func x25519DiffieHellman() throws {
        let alice = try X25519PrivateKey(
            rawRepresentation: hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"))
        let bob = try X25519PrivateKey(
            rawRepresentation: hex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb"))
        #expect(hex(alice.publicKey) == "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
        #expect(hex(bob.publicKey) == "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
        let shared = "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"
        #expect(hex(try alice.sharedSecret(with: bob.publicKey)) == shared)
        #expect(hex(try bob.sharedSecret(with: alice.publicKey)) == shared)
    }

    @Test("X25519 refuses a small-order peer point and a short key; fresh keys agree")
    func x25519Failures() throws {
        let key = try X25519PrivateKey()
        #expect(throws: CryptoError.self) { try key.sharedSecret(with: [UInt8](repeating: 0, count: 32)) }
        #expect(throws: CryptoError.self) { try key.sharedSecret(with: [UInt8](repeating: 9, count: 31)) }
        let other = try X25519PrivateKey()
        #expect(try key.sharedSecret(with: other.publicKey) == other.sharedSecret(with: key.publicKey))
        #expect(!String(describing: key).contains(hex(key.rawRepresentation)))
    }

    @Test(
        "Ed25519 keys and signatures match RFC 8032 §7.1 tests 1–3",
        arguments: [
            (
                "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
                "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
                "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46b"
                    + "d25bf5f0595bbe24655141438e7a100b"
            ),
            (
                "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
                "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
                "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c"
                    + "387b2eaeb4302aeeb00d291612bb0c00"
            ),
            (
                "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
                "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
                "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc659"
                    + "4a7c15e9716ed28dc027beceea1ec40a"
            ),
        ])
    func ed25519(seed: String, publicKey: String, message: String, signature: String) throws {
        let key = try Ed25519PrivateKey(seed: hex(seed))
        #expect(hex(key.publicKey) == publicKey)
        #expect(hex(try key.signature(for: hex(message))) == signature)
        let verifier = try Ed25519PublicKey(rawRepresentation: hex(publicKey))
        #expect(verifier.isValidSignature(hex(signature), for: hex(message)))
        var forged = hex(signature)
        forged[0] ^= 0x80
        #expect(!verifier.isValidSignature(forged, for: hex(message)))
        #expect(!verifier.isValidSignature(hex(signature), for: hex(message) + [0]))
        #expect(!verifier.isValidSignature(Array(hex(signature).prefix(63)), for: hex(message)))
        #expect(!String(describing: key).contains(seed))
        #expect(!String(reflecting: key).contains(seed))
    }

    @Test("random bytes differ between calls and have the asked length; constant-time compare")
    func randomAndCompare() throws {
        let a = try SecureRandom.bytes(32)
        let b = try SecureRandom.bytes(32)
        #expect(a.count == 32 && a != b)
        #expect(try SecureRandom.bytes(0).isEmpty)
        #expect(ConstantTime.equals(a, a) && !ConstantTime.equals(a, b) && !ConstantTime.equals(a, Array(a.prefix(31))))
        #expect(ConstantTime.equals([], []))
    }
}
