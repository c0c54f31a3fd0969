public import HomeStore

extension ManagementError {
    /// The management error for a controller error, with the advice a user needs; `pairing` names the
    /// pairing concerned, when there is one. The lines are the command line's (docs/command-line.md "The commands").
    public init(_ error: HAPControllerError, pairing: String? = nil) {
        let prefix = pairing.map { "\($0): " } ?? ""
        switch error {
        case .connection(.pairing(.invalidSetupCode)):
            self = .invalidSetupCode
        case .connection(.pairing(.wrongSetupCode)):
            self = .wrongSetupCode
        case .connection(.pairing(.alreadyPaired)):
            self = .alreadyPaired(prefix + Self.advice(for: .alreadyPaired, pairing: pairing))
        case .alreadyPairedHere, .interruptedPairing:
            self = .alreadyPaired(prefix + error.description)
        case .connection(.pairing(let pairingError)):
            self = .failed(prefix + Self.advice(for: pairingError, pairing: pairing))
        case .connection(.connectFailed), .notAnAccessory:
            self = .unreachable(prefix + error.description)
        case .unpairFailed(let name, let reason):
            self = .unreachable(
                "cannot remove the pairing from \(name) (\(reason)); the pairing was kept: "
                    + "switch the accessory on and try again, or unpair with --force (\"force\":true in a request) to forget it here only"
            )
        case .unknownPairing, .ambiguousPairing:
            self = .unknownAccessory(error.description)
        default:
            self = .failed(prefix + error.description)
        }
    }

    /// What to do after a pairing error.
    private static func advice(for error: PairingError, pairing: String?) -> String {
        switch error {
        case .alreadyPaired:
            return "already paired with another controller: remove that pairing first, or reset the accessory; "
                + "if a pair with it was interrupted (stopped or cut off while pairing), that is the likely cause "
                + "and only a reset of the accessory clears it"
        case .tooManyAttempts:
            return "the accessory refuses pairing after too many failed attempts: reset the accessory"
        case .busy:
            return "the accessory is busy pairing with another controller: try again in a minute"
        case .backoff(let delay?):
            return "the accessory asks to wait \(delay) s before pairing again: try again then"
        case .maxPeers:
            return "the accessory cannot store more pairings: remove one of its controllers first"
        case .notAdmin:
            return "the accessory refused with an authentication error: this gateway is not an admin of it, "
                + "and only an admin may list, add or remove its pairings"
        case .authenticationFailed:
            let name = pairing.map { " \"\($0)\"" } ?? ""
            return "the accessory no longer knows this controller (it was reset or the pairing removed): "
                + "run hap2mqtt unpair\(name) and pair again"
        default:
            return error.description
        }
    }
}
