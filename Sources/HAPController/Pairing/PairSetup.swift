/// The controller side of pair-setup, M1 to M6 (HAP spec §5.6; docs/hap-notes.md §1.3), as a state machine
/// without I/O: `start()` gives the M1 body, each `receive(_:)` takes the accessory's response body and gives
/// the next request body, until it returns `.paired` with the accessory's long-term identity. The caller
/// POSTs the bodies to `/pair-setup` as `application/pairing+tlv8`.
///
/// ```swift
/// var setup = PairSetup(setupCode: code, controller: identity)
/// var body = setup.start()
/// while true {
///     switch try setup.receive(try await post("/pair-setup", body)) {
///     case .send(let next): body = next
///     case .paired(let accessory): return accessory
///     }
/// }
/// ```
///
/// After any error the machine is finished: start a new `PairSetup` (a new TCP connection is not needed).
public struct PairSetup: Sendable {
    /// What to do after a response.
    public enum Step: Sendable, Hashable {
        /// POST this body next.
        case send([UInt8])
        /// Pair-setup succeeded: persist the result at once (docs/hap-notes.md §7.16).
        case paired(PairSetupResult)
    }

    private enum State: Sendable {
        case idle
        case awaitingM2
        case awaitingM4(SRPClient)
        case awaitingM6(sessionKey: [UInt8], encryptionKey: [UInt8])
        case finished
    }

    private let setupCode: SetupCode
    private let controller: ControllerIdentity
    private let method: PairingMethod
    private var state = State.idle

    /// A pair-setup for `controller` with the accessory whose code is `setupCode`.
    ///
    /// - Parameter featureFlags: the accessory's `ff` TXT value; only when bit 0x01 (Apple authentication
    ///   coprocessor) is set does M1 ask for `Method=1` (PairSetupWithAuth), as other accessories then answer
    ///   `Error=1` (docs/hap-notes.md §7.3).
    public init(setupCode: SetupCode, controller: ControllerIdentity, featureFlags: Int = 0) {
        self.setupCode = setupCode
        self.controller = controller
        self.method = featureFlags & 0x01 != 0 ? .pairSetupWithAuth : .pairSetup
    }

    /// The M1 body: `State=1, Method=0` (or 1, see `init`). Calling it again starts over.
    public mutating func start() -> [UInt8] {
        state = .awaitingM2
        let m1: TLV8 = [(.state, [1]), (.method, [method.rawValue])]
        return m1.encoded()
    }

    /// Takes the accessory's response to the last request and returns the next step.
    ///
    /// - Throws: `PairingError`: the accessory's error codes (`.wrongSetupCode` for `Error=2` at M4,
    ///   `.alreadyPaired`, `.tooManyAttempts`, `.busy`, `.backoff`, `.maxPeers`, `.accessoryError`), or
    ///   `.malformedResponse`, `.invalidAccessoryProof`, `.decryptionFailed`, `.invalidAccessorySignature`,
    ///   `.crypto`, and `.outOfOrder` when called before `start()` or after the end.
    public mutating func receive(_ response: [UInt8]) throws(PairingError) -> Step {
        let current = state
        state = .finished
        switch current {
        case .idle: throw .outOfOrder("pair-setup receive() before start()")
        case .finished: throw .outOfOrder("pair-setup receive() after it finished")
        case .awaitingM2: return try handleM2(response)
        case .awaitingM4(let srp): return try handleM4(response, srp: srp)
        case .awaitingM6(let sessionKey, let encryptionKey):
            return .paired(try handleM6(response, sessionKey: sessionKey, encryptionKey: encryptionKey))
        }
    }

    /// M2 (salt and B) → M3 (A and the proof M1).
    private mutating func handleM2(_ response: [UInt8]) throws(PairingError) -> Step {
        let step = "pair-setup M2"
        let m2 = try PairingResponse.decode(
            response, step: step, expectedState: 2,
            authentication: .authenticationRejected(step: step))
        let b = try PairingResponse.require(.publicKey, in: m2, step: step)
        let salt = try PairingResponse.require(.salt, in: m2, step: step)
        let password = setupCode.dashed
        let srp = try pairingCrypto { () throws(CryptoError) in
            try SRPClient(password: password, salt: salt, serverPublicKey: b)
        }
        state = .awaitingM4(srp)
        let m3: TLV8 = [(.state, [3]), (.publicKey, srp.publicKey), (.proof, srp.proof)]
        return .send(m3.encoded())
    }

    /// M4 (the accessory's proof) → M5 (our encrypted long-term identity).
    private mutating func handleM4(_ response: [UInt8], srp: SRPClient) throws(PairingError) -> Step {
        let step = "pair-setup M4"
        let m4 = try PairingResponse.decode(response, step: step, expectedState: 4, authentication: .wrongSetupCode)
        let proof = try PairingResponse.require(.proof, in: m4, step: step)
        guard srp.isValidServerProof(proof) else { throw .invalidAccessoryProof }
        let key = srp.sessionKey
        let controller = self.controller
        let (encryptionKey, signature) = try pairingCrypto { () throws(CryptoError) in
            let encryptionKey = try HKDF.sha512(
                key: key, salt: "Pair-Setup-Encrypt-Salt", info: "Pair-Setup-Encrypt-Info")
            let deviceX = try HKDF.sha512(
                key: key, salt: "Pair-Setup-Controller-Sign-Salt",
                info: "Pair-Setup-Controller-Sign-Info")
            let signature = try controller.signature(
                for: deviceX + Array(controller.pairingID.utf8) + controller.publicKey)
            return (encryptionKey, signature)
        }
        var subTLV = TLV8()
        subTLV.append(.identifier, string: controller.pairingID)
        subTLV.append(.publicKey, controller.publicKey)
        subTLV.append(.signature, signature)
        let sealed = try PairingResponse.encryptSubTLV(subTLV, key: encryptionKey, label: "PS-Msg05")
        state = .awaitingM6(sessionKey: key, encryptionKey: encryptionKey)
        let m5: TLV8 = [(.state, [5]), (.encryptedData, sealed)]
        return .send(m5.encoded())
    }

    /// M6: decrypt the accessory's identity and check its signature.
    private func handleM6(_ response: [UInt8], sessionKey: [UInt8], encryptionKey: [UInt8]) throws(PairingError)
        -> PairSetupResult
    {
        let step = "pair-setup M6"
        let m6 = try PairingResponse.decode(
            response, step: step, expectedState: 6,
            authentication: .authenticationRejected(step: step))
        let inner = try PairingResponse.decryptSubTLV(m6, key: encryptionKey, label: "PS-Msg06", step: step)
        let id = try PairingResponse.require(.identifier, in: inner, step: step)
        let ltpk = try PairingResponse.require(.publicKey, in: inner, step: step, length: Ed25519PrivateKey.keyLength)
        let signature = try PairingResponse.require(.signature, in: inner, step: step)
        guard let pairingID = String(validating: id, as: UTF8.self), !pairingID.isEmpty else {
            throw .malformedResponse(step: step, reason: "the accessory pairing id is not UTF-8 text")
        }
        let accessoryX = try pairingCrypto { () throws(CryptoError) in
            try HKDF.sha512(
                key: sessionKey, salt: "Pair-Setup-Accessory-Sign-Salt", info: "Pair-Setup-Accessory-Sign-Info")
        }
        let verifier = try pairingCrypto { () throws(CryptoError) in try Ed25519PublicKey(rawRepresentation: ltpk) }
        guard verifier.isValidSignature(signature, for: accessoryX + id + ltpk) else {
            throw .invalidAccessorySignature(step: step)
        }
        return PairSetupResult(accessoryPairingID: pairingID, accessoryLTPK: ltpk)
    }
}

/// What pair-setup learns about the accessory: its pairing id and long-term public key (HAP spec §5.6.6.2).
public struct PairSetupResult: Sendable, Hashable, CustomStringConvertible {
    /// The accessory's pairing id, e.g. "AA:BB:CC:DD:EE:FF".
    public let accessoryPairingID: String
    /// The accessory's Ed25519 long-term public key (32 bytes).
    public let accessoryLTPK: [UInt8]

    /// The result for an accessory with this pairing id and 32-byte LTPK.
    public init(accessoryPairingID: String, accessoryLTPK: [UInt8]) {
        self.accessoryPairingID = accessoryPairingID
        self.accessoryLTPK = accessoryLTPK
    }

    public var description: String { "PairSetupResult(\(accessoryPairingID))" }
}
