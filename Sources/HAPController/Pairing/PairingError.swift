/// Why pair-setup, pair-verify or a `/pairings` request failed. Prints as one line a user can act on.
///
/// The accessory's `Error` TLV codes (HAP spec §5.15 table 5-5) map to the cases that name them; responses
/// the controller cannot use map to `malformedResponse`, `invalidAccessoryProof`, `invalidAccessorySignature`
/// or `decryptionFailed`.
public enum PairingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text given as a setup code is not 8 digits (`XXX-XX-XXX` or `XXXXXXXX`).
    case invalidSetupCode
    /// Pair-setup M4 `Error=2` (Authentication): the accessory did not accept the setup code.
    case wrongSetupCode
    /// `Error=6` (Unavailable): the accessory is already paired with another controller.
    case alreadyPaired
    /// `Error=5` (MaxTries): the accessory has seen too many failed attempts and refuses more.
    case tooManyAttempts
    /// `Error=7` (Busy): another controller is pairing with the accessory right now.
    case busy
    /// `Error=3` (Backoff): the accessory asks to wait `retryDelay` seconds (nil when it did not say).
    case backoff(retryDelay: Int?)
    /// `Error=4` (MaxPeers): the accessory cannot store another pairing.
    case maxPeers
    /// `Error=1` (Unknown), or a code HAP does not define, in the response to `step` (e.g. "pair-setup M2").
    case accessoryError(code: UInt8, step: String)
    /// `Error=2` (Authentication) where it does not mean a wrong code: the accessory refused this controller's
    /// signature or identity at `step`.
    case authenticationRejected(step: String)
    /// Pair-verify M4 `Error=2`: the accessory no longer knows this controller, i.e. the pairing was removed
    /// on the accessory (reset, or removed by another controller). Pair again; do not retry in a loop.
    case authenticationFailed
    /// `/pairings` `Error=2`: this controller is not an admin of the accessory.
    case notAdmin
    /// Pair-verify M2 came from a different accessory than the paired one: `found` answered at the address
    /// where `expected` was paired.
    case wrongAccessory(expected: String, found: String)
    /// The accessory's SRP proof (pair-setup M4) did not verify: it does not share our session key.
    case invalidAccessoryProof
    /// The accessory's Ed25519 signature at `step` did not verify against its long-term public key.
    case invalidAccessorySignature(step: String)
    /// The `EncryptedData` of `step` did not decrypt (authentication tag mismatch).
    case decryptionFailed(step: String)
    /// The response to `step` is not what HAP prescribes: `reason` says what is wrong.
    case malformedResponse(step: String, reason: String)
    /// The state machine was driven out of order (a bug in the caller), e.g. `receive` before `start`.
    case outOfOrder(String)
    /// A cryptographic operation failed (`CryptoError`), e.g. the accessory sent an unusable SRP value.
    case crypto(CryptoError)

    public var description: String {
        switch self {
        case .invalidSetupCode:
            return "the setup code must be 8 digits written XXX-XX-XXX (for example 123-45-678)"
        case .wrongSetupCode:
            return "the accessory rejected the setup code: check the code on the accessory or its label"
        case .alreadyPaired:
            return "the accessory is already paired with another controller: remove it there or reset the accessory "
                + "(an interrupted pairing is a likely cause, and only a reset clears it)"
        case .tooManyAttempts:
            return "the accessory refuses further pairing attempts after too many failures: reset the accessory"
        case .busy:
            return "the accessory is busy with another pairing: try again in a moment"
        case .backoff(let delay?):
            return "the accessory asks to wait \(delay) s before the next pairing attempt"
        case .backoff(nil):
            return "the accessory asks to wait before the next pairing attempt"
        case .maxPeers:
            return "the accessory cannot store more pairings: remove one of its controllers first"
        case .accessoryError(let code, let step):
            return "the accessory reported \(code == 1 ? "an unknown error" : "error code \(code)") at \(step)"
        case .authenticationRejected(let step):
            return "the accessory refused this controller's authentication at \(step)"
        case .authenticationFailed:
            return
                "the accessory no longer knows this controller (the pairing was removed on the accessory): pair again"
        case .notAdmin:
            return "this controller is not an admin of the accessory"
        case .wrongAccessory(let expected, let found):
            return "the accessory at this address is \(found), not the paired \(expected)"
        case .invalidAccessoryProof:
            return "the accessory's SRP proof did not verify: it is not the accessory the code belongs to"
        case .invalidAccessorySignature(let step):
            return "the accessory's signature at \(step) did not verify"
        case .decryptionFailed(let step):
            return "the encrypted data of \(step) did not decrypt"
        case .malformedResponse(let step, let reason):
            return "malformed \(step) response: \(reason)"
        case .outOfOrder(let what):
            return "pairing step out of order: \(what)"
        case .crypto(let error):
            return error.description
        }
    }
}
