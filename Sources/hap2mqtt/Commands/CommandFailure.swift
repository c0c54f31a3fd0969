import HAPController
import JSON

/// How a command ended badly, as the user sees it: one line `hap2mqtt: <message>` on standard error that
/// says what to do, and the exit status (1 for failures, 2 for usage errors found only when running).
struct CommandFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The exit status for a command that could not do its work.
    static let failureStatus: Int32 = 1

    var message: String
    var status: Int32 = failureStatus

    var description: String { message }

    /// A failure with this line and exit status.
    init(message: String, status: Int32 = failureStatus) {
        self.message = message
        self.status = status
    }

    /// The line for a controller error, with the advice a command-line user needs; `pairing` names the
    /// pairing concerned, when there is one.
    init(_ error: HAPControllerError, pairing: String? = nil) {
        let prefix = pairing.map { "\($0): " } ?? ""
        switch error {
        case .connection(.pairing(let pairingError)):
            message = prefix + Self.advice(for: pairingError, pairing: pairing)
        case .unpairFailed(let name, let reason):
            message = "cannot remove the pairing from \(name) (\(reason)); the pairing was kept: "
                + "switch the accessory on and try again, or use --force to forget it here only"
        case .nameInUse(let name):
            message = "a pairing named \(name.jsonQuoted) exists already: choose another --name"
        default:
            message = prefix + error.description
        }
    }

    /// What to do after a pairing error.
    private static func advice(for error: PairingError, pairing: String?) -> String {
        switch error {
        case .invalidSetupCode:
            return "the setup code must be 8 digits written XXX-XX-XXX: check the code on the accessory"
        case .wrongSetupCode:
            return "wrong setup code: check the 8-digit code on the accessory"
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
        case .authenticationFailed:
            let name = pairing.map { " \($0.jsonQuoted)" } ?? ""
            return "the accessory no longer knows this controller (it was reset or the pairing removed): "
                + "run hap2mqtt unpair\(name) and pair again"
        default:
            return error.description
        }
    }
}
