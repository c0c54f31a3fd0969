import HAPController
import HomeStore
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

    /// The line for a controller error, with the advice a command-line user needs (the lines of
    /// `ManagementError`, which the bridge API and the web page show too); `pairing` names the pairing
    /// concerned, when there is one.
    init(_ error: HAPControllerError, pairing: String? = nil) {
        switch error {
        case .nameInUse(let name):
            message = "a pairing named \(name.jsonQuoted) exists already: choose another --name"
        default:
            message = ManagementError(error, pairing: pairing).description
        }
    }

    /// The line of a management operation's error.
    init(_ error: ManagementError) {
        message = error.description
    }
}
