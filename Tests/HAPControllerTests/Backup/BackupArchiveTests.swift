import Testing

@testable import HAPController

@Suite("Backup archive: scrypt and ChaCha20-Poly1305 known answers, and every bad archive refused")
struct BackupArchiveTests {
    /// Small scrypt parameters, so that each test derives in milliseconds.
    static let fast = Scrypt.Parameters(logN: 10, r: 8, p: 1)
    static let passphrase = Array("correct horse battery staple".utf8)

    @Test(
        "scrypt gives the outputs of RFC 7914 §12",
        arguments: [
            (
                "", "", Scrypt.Parameters(logN: 4, r: 1, p: 1),
                "77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442"
                    + "fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906"
            ),
            (
                "password", "NaCl", Scrypt.Parameters(logN: 10, r: 8, p: 16),
                "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162"
                    + "2eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"
            ),
            (
                "pleaseletmein", "SodiumChloride", Scrypt.Parameters(logN: 14, r: 8, p: 1),
                "7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2"
                    + "d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887"
            ),
        ] as [(String, String, Scrypt.Parameters, String)])
    func scrypt(passphrase: String, salt: String, parameters: Scrypt.Parameters, expected: String) throws {
        let key = try Scrypt.derive(
            passphrase: Array(passphrase.utf8), salt: Array(salt.utf8), parameters: parameters, length: 64)
        #expect(hex(key) == expected)
    }

    @Test("parameters past 1 GiB or outside RFC 7914's ranges are refused before anything is allocated")
    func unusableParameters() {
        #expect(!Scrypt.Parameters(logN: 30, r: 8, p: 1).isUsable)
        #expect(!Scrypt.Parameters(logN: 0, r: 8, p: 1).isUsable)
        #expect(!Scrypt.Parameters(logN: 10, r: 0, p: 1).isUsable)
        #expect(!Scrypt.Parameters(logN: 10, r: 8, p: 0).isUsable)
        #expect(Scrypt.Parameters.standard.isUsable)
        #expect(Scrypt.Parameters.standard.memory == 128 * 8 * ((1 << 17) + 1))
    }

    // Computed independently with Python: hashlib.scrypt for the 48 bytes (key ‖ check) and the
    // `cryptography` package's ChaCha20Poly1305 with the 81-byte header as the additional data.
    @Test("an archive with a given salt and nonce is byte for byte the one Python's scrypt and ChaCha20-Poly1305 give")
    func knownAnswer() throws {
        let sealed = try BackupArchive.seal(
            Array(#"{"format":1}"#.utf8), passphrase: Self.passphrase, parameters: Self.fast,
            salt: Array(0..<16), nonce: Array(100..<112))
        #expect(
            hex(sealed)
                == "686170326d717474206261636b75700a0001010a0000000800000001000102030405060708090a0b0c0d0e0f01"
                + "6465666768696a6b6c6d6e6fbe400f4cca79be4e27f166cf4fc7c2ac000000000000001c9685f532af9de066"
                + "2c3d30cec644e568cce7bf485573af682973bdda")
        #expect(try BackupArchive.open(sealed, passphrase: Self.passphrase) == Array(#"{"format":1}"#.utf8))
    }

    @Test("sealed and opened again: the payload back; two seals of the same payload differ (fresh salt and nonce)")
    func roundTrip() throws {
        let payload = Array("the state directory".utf8)
        let first = try BackupArchive.seal(payload, passphrase: Self.passphrase, parameters: Self.fast)
        let second = try BackupArchive.seal(payload, passphrase: Self.passphrase, parameters: Self.fast)
        #expect(first != second)
        #expect(try BackupArchive.open(first, passphrase: Self.passphrase) == payload)
        #expect(first.starts(with: Array("hap2mqtt backup\n".utf8)))
        #expect(!String(decoding: first, as: UTF8.self).contains("state directory"))
    }

    @Test("a wrong passphrase, a cut-short, damaged, lengthened, foreign or newer archive: each its own error")
    func badArchives() throws {
        let good = try BackupArchive.seal(Array("payload".utf8), passphrase: Self.passphrase, parameters: Self.fast)
        #expect(throws: BackupError.wrongPassphrase) {
            try BackupArchive.open(good, passphrase: Array("correct horse battery stapler".utf8))
        }
        #expect(throws: BackupError.truncated(actual: good.count - 1, expected: good.count)) {
            try BackupArchive.open(Array(good.dropLast()), passphrase: Self.passphrase)
        }
        #expect(throws: BackupError.truncated(actual: 40, expected: BackupArchive.headerLength)) {
            try BackupArchive.open(Array(good.prefix(40)), passphrase: Self.passphrase)
        }
        #expect(throws: BackupError.truncated(actual: 5, expected: BackupArchive.headerLength)) {
            try BackupArchive.open(Array(good.prefix(5)), passphrase: Self.passphrase)
        }
        var flipped = good
        flipped[good.count - 20] ^= 0x01
        #expect(throws: BackupError.damaged(reason: "its content does not match its authentication tag")) {
            try BackupArchive.open(flipped, passphrase: Self.passphrase)
        }
        #expect(throws: BackupError.damaged(reason: "1 bytes follow its end")) {
            try BackupArchive.open(good + [0], passphrase: Self.passphrase)
        }
        #expect(throws: BackupError.notABackup) {
            try BackupArchive.open(Array("{\"AccessoryPairingID\": 1}".utf8), passphrase: Self.passphrase)
        }
        var newer = good
        newer[17] = 2
        #expect(throws: BackupError.newerFormat(version: 2, supported: 1)) {
            try BackupArchive.open(newer, passphrase: Self.passphrase)
        }
        var greedy = good
        greedy[19] = 40  // N = 2^40: refused, never allocated
        #expect(throws: BackupError.damaged(reason: "impossible key derivation parameters N=2^40 r=8 p=1")) {
            try BackupArchive.check(greedy)
        }
    }

    @Test("every error is one line that shows no key, passphrase or content")
    func errorLines() throws {
        let errors: [BackupError] = [
            .notABackup, .truncated(actual: 1, expected: 2), .damaged(reason: "x"),
            .newerFormat(version: 2, supported: 1), .wrongPassphrase,
            .stateDirectoryInUse(directory: "/data", reason: "holds a pairing (Lamp)"),
        ]
        for error in errors {
            #expect(!error.description.contains("\n"))
            #expect(!error.description.contains("correct horse"))
        }
    }
}
