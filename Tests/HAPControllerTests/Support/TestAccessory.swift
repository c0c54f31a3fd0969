import Testing

@testable import HAPController

/// The accessory side of pair-setup and pair-verify, written for tests from HAP spec §5.6–§5.7 and
/// docs/hap-notes.md §1–§2 with the library's primitives, so the controller state machines run against a
/// peer that checks everything they send. Switches make it misbehave the ways real accessories do.
struct TestAccessory {
    let pairingID: String
    let longTermKey: Ed25519PrivateKey
    let setupCode: String
    /// How the SRP server encodes its values (HAP-python hashes them unpadded).
    var srpEncoding: TestSRPServer.Encoding = .padded
    /// Send no State items (Heatmiser Neohub).
    var omitState = false
    /// Answer the request with this State (1…6 for pair-setup) with `Error=<code>` instead.
    var errorAtRequest: [UInt8: UInt8] = [:]
    /// Sign M6 / M2 with this key instead of `longTermKey` (a forged identity).
    var signingKeyOverride: Ed25519PrivateKey?
    /// Announce this identifier in pair-verify M2 instead of `pairingID`.
    var announcedIdentifier: String?
    /// Send this proof at M4 instead of the real M2.
    var proofOverride: [UInt8]?
    /// Flip one bit of the EncryptedData it sends.
    var tamperEncryptedData = false

    /// Controllers it is paired with: pairing id → LTPK.
    private(set) var controllers: [String: [UInt8]] = [:]
    /// The last pair-setup M1's Method.
    private(set) var requestedMethod: UInt8?
    /// The session keys of the last successful pair-verify, from the accessory's side.
    private(set) var sessionKeys: SessionKeys?

    private var srp: TestSRPServer?
    private var setupEncryptionKey: [UInt8] = []
    private var verifyKey: [UInt8] = []
    private var verifyShared: [UInt8] = []
    private var ephemeral: X25519PrivateKey?
    private var controllerEphemeral: [UInt8] = []

    init(pairingID: String = "AA:BB:CC:DD:EE:0F", setupCode: String = "031-45-154") throws {
        self.pairingID = pairingID
        self.longTermKey = try Ed25519PrivateKey()
        self.setupCode = setupCode
    }

    /// Forgets the controller with this pairing id (as "remove pairing" on the accessory would).
    mutating func unpair(_ controllerID: String) { controllers[controllerID] = nil }

    // MARK: pair-setup

    /// Answers one pair-setup request body.
    mutating func pairSetup(_ body: [UInt8]) throws -> [UInt8] {
        let request = try TLV8(decoding: body)
        let state = try #require(request[.state]?.first)
        if let code = errorAtRequest[state] { return respond(state + 1, [(.error, [code])]) }
        switch state {
        case 1:
            requestedMethod = request[.method]?.first
            let salt = try SecureRandom.bytes(16)
            srp = try TestSRPServer(
                password: setupCode, salt: salt, privateKey: SecureRandom.bytes(32), encoding: srpEncoding)
            return respond(2, [(.publicKey, srp?.publicKey ?? []), (.salt, salt)])
        case 3:
            var server = try #require(srp)
            let a = try #require(request[.publicKey])
            let m1 = try #require(request[.proof])
            guard let m2 = try server.verify(clientPublicKey: a, clientProof: m1) else {
                return respond(4, [(.error, [PairingTLVError.authentication.rawValue])])
            }
            srp = server
            setupEncryptionKey = try HKDF.sha512(
                key: server.sessionKey, salt: "Pair-Setup-Encrypt-Salt", info: "Pair-Setup-Encrypt-Info")
            return respond(4, [(.proof, proofOverride ?? m2)])
        case 5:
            let key = try #require(srp?.sessionKey)
            let inner = try TLV8(
                decoding: ChaCha20Poly1305.open(
                    try #require(request[.encryptedData]),
                    key: setupEncryptionKey, nonce: ChaCha20Poly1305.nonce(label: "PS-Msg05")))
            let id = try #require(inner[.identifier])
            let ltpk = try #require(inner[.publicKey])
            let deviceX = try HKDF.sha512(
                key: key, salt: "Pair-Setup-Controller-Sign-Salt", info: "Pair-Setup-Controller-Sign-Info")
            guard
                try Ed25519PublicKey(rawRepresentation: ltpk)
                    .isValidSignature(try #require(inner[.signature]), for: deviceX + id + ltpk)
            else {
                return respond(6, [(.error, [PairingTLVError.authentication.rawValue])])
            }
            controllers[String(decoding: id, as: UTF8.self)] = ltpk
            let accessoryX = try HKDF.sha512(
                key: key, salt: "Pair-Setup-Accessory-Sign-Salt", info: "Pair-Setup-Accessory-Sign-Info")
            let ourID = Array(pairingID.utf8)
            let signature = try (signingKeyOverride ?? longTermKey).signature(
                for: accessoryX + ourID + longTermKey.publicKey)
            let sub: TLV8 = [(.identifier, ourID), (.publicKey, longTermKey.publicKey), (.signature, signature)]
            let sealed = try ChaCha20Poly1305.seal(
                sub.encoded(), key: setupEncryptionKey, nonce: ChaCha20Poly1305.nonce(label: "PS-Msg06"))
            return respond(6, [(.encryptedData, tampered(sealed))])
        default:
            return respond(state + 1, [(.error, [PairingTLVError.unknown.rawValue])])
        }
    }

    // MARK: pair-verify

    /// Answers one pair-verify request body.
    mutating func pairVerify(_ body: [UInt8]) throws -> [UInt8] {
        let request = try TLV8(decoding: body)
        let state = try #require(request[.state]?.first)
        if let code = errorAtRequest[state] { return respond(state + 1, [(.error, [code])]) }
        switch state {
        case 1:
            controllerEphemeral = try #require(request[.publicKey])
            let key = try X25519PrivateKey()
            ephemeral = key
            verifyShared = try key.sharedSecret(with: controllerEphemeral)
            verifyKey = try HKDF.sha512(
                key: verifyShared, salt: "Pair-Verify-Encrypt-Salt", info: "Pair-Verify-Encrypt-Info")
            let id = Array((announcedIdentifier ?? pairingID).utf8)
            let signature = try (signingKeyOverride ?? longTermKey).signature(
                for: key.publicKey + id + controllerEphemeral)
            let sub: TLV8 = [(.identifier, id), (.signature, signature)]
            let sealed = try ChaCha20Poly1305.seal(
                sub.encoded(), key: verifyKey, nonce: ChaCha20Poly1305.nonce(label: "PV-Msg02"))
            return respond(2, [(.publicKey, key.publicKey), (.encryptedData, tampered(sealed))])
        case 3:
            let key = try #require(ephemeral)
            let inner = try TLV8(
                decoding: ChaCha20Poly1305.open(
                    try #require(request[.encryptedData]),
                    key: verifyKey, nonce: ChaCha20Poly1305.nonce(label: "PV-Msg03")))
            let id = try #require(inner[.identifier])
            guard let ltpk = controllers[String(decoding: id, as: UTF8.self)],
                try Ed25519PublicKey(rawRepresentation: ltpk).isValidSignature(
                    try #require(inner[.signature]), for: controllerEphemeral + id + key.publicKey)
            else {
                return respond(4, [(.error, [PairingTLVError.authentication.rawValue])])
            }
            let controllerKeys = try SessionKeys(sharedSecret: verifyShared)
            sessionKeys = controllerKeys
            return respond(4, [])
        default:
            return respond(state + 1, [(.error, [PairingTLVError.unknown.rawValue])])
        }
    }

    /// The accessory's end of the encrypted session: it decrypts with the controller→accessory key.
    func sessionCipher() throws -> HAPSessionCipher {
        let keys = try #require(sessionKeys)
        return HAPSessionCipher(encryptionKey: keys.accessoryToController, decryptionKey: keys.controllerToAccessory)
    }

    private func respond(_ state: UInt8, _ items: [(TLV8Type, [UInt8])]) -> [UInt8] {
        var message = TLV8()
        if !omitState { message.append(.state, byte: state) }
        for (type, value) in items { message.append(type, value) }
        return message.encoded()
    }

    private func tampered(_ sealed: [UInt8]) -> [UInt8] {
        guard tamperEncryptedData, !sealed.isEmpty else { return sealed }
        var copy = sealed
        copy[copy.count / 2] ^= 0x04
        return copy
    }
}
