/// The controller side of pair-verify, M1 to M4 (HAP spec §5.7; docs/hap-notes.md §2), as a state machine
/// without I/O: `start()` gives the M1 body, `receive(_:)` takes M2 and gives M3, then takes M4 and returns
/// `.verified` with the session keys. The caller POSTs the bodies to `/pair-verify` and, after M4, switches
/// the same connection to `HAPSessionCipher` with those keys.
///
/// Each run uses a fresh ephemeral X25519 key. After any error the machine is finished.
public struct PairVerify: Sendable {
    /// What to do after a response.
    public enum Step: Sendable, Hashable {
        /// POST this body next.
        case send([UInt8])
        /// Pair-verify succeeded: encrypt from the next byte on with these keys.
        case verified(SessionKeys)
    }

    private enum State: Sendable {
        case idle
        case awaitingM2(X25519PrivateKey)
        case awaitingM4(sharedSecret: [UInt8])
        case finished
    }

    private let controller: ControllerIdentity
    private let accessoryPairingID: String
    private let accessoryLTPK: [UInt8]
    private var state = State.idle

    /// A pair-verify for `controller` with the accessory that pair-setup returned `accessoryPairingID` and
    /// `accessoryLTPK` (32 bytes) for.
    public init(controller: ControllerIdentity, accessoryPairingID: String, accessoryLTPK: [UInt8]) {
        self.controller = controller
        self.accessoryPairingID = accessoryPairingID
        self.accessoryLTPK = accessoryLTPK
    }

    /// A pair-verify for `controller` with the accessory of a stored `pairing`.
    public init(controller: ControllerIdentity, pairing: Pairing) {
        self.init(
            controller: controller, accessoryPairingID: pairing.accessoryPairingID,
            accessoryLTPK: pairing.accessoryLTPK)
    }

    /// The M1 body: `State=1, PublicKey=` a fresh X25519 public key. Calling it again starts over with a new
    /// key. Throws `PairingError.crypto` if randomness or libcrypto fail.
    public mutating func start() throws(PairingError) -> [UInt8] {
        let key = try pairingCrypto { () throws(CryptoError) in try X25519PrivateKey() }
        state = .awaitingM2(key)
        let m1: TLV8 = [(.state, [1]), (.publicKey, key.publicKey)]
        return m1.encoded()
    }

    /// Takes the accessory's response to the last request and returns the next step.
    ///
    /// - Throws: `PairingError`: at M2 `.wrongAccessory` (another accessory answered at the paired address),
    ///   `.invalidAccessorySignature`, `.decryptionFailed`, `.malformedResponse`; at M2 or M4
    ///   `.authenticationFailed` (`Error=2`: the pairing was removed on the accessory); the accessory's other
    ///   error codes; `.crypto`; `.outOfOrder` when called before `start()` or after the end.
    public mutating func receive(_ response: [UInt8]) throws(PairingError) -> Step {
        let current = state
        state = .finished
        switch current {
        case .idle: throw .outOfOrder("pair-verify receive() before start()")
        case .finished: throw .outOfOrder("pair-verify receive() after it finished")
        case .awaitingM2(let key): return try handleM2(response, key: key)
        case .awaitingM4(let sharedSecret):
            let step = "pair-verify M4"
            _ = try PairingResponse.decode(
                response, step: step, expectedState: 4, authentication: .authenticationFailed)
            return .verified(
                try pairingCrypto { () throws(CryptoError) in try SessionKeys(sharedSecret: sharedSecret) })
        }
    }

    /// M2 (the accessory's ephemeral key and signed identity) → M3 (ours).
    private mutating func handleM2(_ response: [UInt8], key: X25519PrivateKey) throws(PairingError) -> Step {
        let step = "pair-verify M2"
        // Error=2 here comes from accessories with no pairing at all (HAP-python answers M1 so when it is
        // unpaired): like M4's, it means the accessory does not know this controller.
        let m2 = try PairingResponse.decode(
            response, step: step, expectedState: 2, authentication: .authenticationFailed)
        let accessoryKey = try PairingResponse.require(
            .publicKey, in: m2, step: step, length: X25519PrivateKey.keyLength)
        let (shared, verifyKey) = try pairingCrypto { () throws(CryptoError) in
            let shared = try key.sharedSecret(with: accessoryKey)
            return (
                shared, try HKDF.sha512(key: shared, salt: "Pair-Verify-Encrypt-Salt", info: "Pair-Verify-Encrypt-Info")
            )
        }
        let inner = try PairingResponse.decryptSubTLV(m2, key: verifyKey, label: "PV-Msg02", step: step)
        let id = try PairingResponse.require(.identifier, in: inner, step: step)
        let signature = try PairingResponse.require(.signature, in: inner, step: step)
        let found = String(decoding: id, as: UTF8.self)
        // Accessories differ in the case of the hex digits of their id; aiohomekit compares lower-cased.
        guard found.lowercased() == accessoryPairingID.lowercased() else {
            throw .wrongAccessory(expected: accessoryPairingID, found: found)
        }
        let ltpk = accessoryLTPK
        let verifier = try pairingCrypto { () throws(CryptoError) in try Ed25519PublicKey(rawRepresentation: ltpk) }
        guard verifier.isValidSignature(signature, for: accessoryKey + id + key.publicKey) else {
            throw .invalidAccessorySignature(step: step)
        }

        let controller = self.controller
        let ourSignature = try pairingCrypto { () throws(CryptoError) in
            try controller.signature(for: key.publicKey + Array(controller.pairingID.utf8) + accessoryKey)
        }
        var subTLV = TLV8()
        subTLV.append(.identifier, string: controller.pairingID)
        subTLV.append(.signature, ourSignature)
        let sealed = try PairingResponse.encryptSubTLV(subTLV, key: verifyKey, label: "PV-Msg03")
        state = .awaitingM4(sharedSecret: shared)
        let m3: TLV8 = [(.state, [3]), (.encryptedData, sealed)]
        return .send(m3.encoded())
    }
}
