public import HomeModel

/// Why a request on a `HAPConnection` failed, or why the connection closed. Prints as one line a user can
/// act on.
///
/// Every case except `pairing`, `refused`, `invalidResponse` and `notSent` ends the connection: the pending
/// request fails with the same error (the queued ones with `notSent`), `events` finishes and
/// `waitUntilClosed()` returns it.
public enum HAPConnectionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No TCP connection could be made (refused, unreachable, timed out, name not resolved).
    case connectFailed(TCPError)
    /// The established connection broke: the accessory closed or reset it, or a send failed.
    case connectionLost(TCPError)
    /// `close()` was called on this side.
    case closed
    /// The request (e.g. `GET /accessories`) got no answer within `seconds`. The connection is closed,
    /// because the encrypted session's counters are out of step once a response goes missing
    /// (aiohomekit does the same).
    case requestTimedOut(request: String, seconds: Double)
    /// An encrypted frame from the accessory failed authentication (HAP spec §6.5.2): the session cannot
    /// go on.
    case sessionBroken(SessionCipherError)
    /// The accessory sent bytes that are not HTTP.
    case malformedHTTP(HTTPParseError)
    /// The accessory sent a message the protocol does not allow here (a response nobody asked for,
    /// cleartext after pair-verify); the text says what.
    case protocolViolation(String)
    /// Pair-setup, pair-verify or a `/pairings` request failed (`PairingError` says how). After a failed
    /// pair-verify the connection is closed.
    case pairing(PairingError)
    /// The accessory refused `request` as a whole with this HAP status (e.g. `POST /identify` of a paired
    /// accessory: -70401). The connection stays usable.
    case refused(HAPStatus, request: String)
    /// The answer to `request` could not be used: an HTTP error without a HAP status, or a body that is not
    /// what HAP prescribes. The connection stays usable.
    case invalidResponse(HAPModelError, request: String)
    /// The request was never handed to the connection's socket (`why`: the connection ended while it
    /// waited for its turn, or its time ran out first): the accessory cannot carry it out.
    case notSent(String)

    /// `.notSent` for a request whose connection ended (`reason`) before it went out.
    public static func notSent(endedBy reason: HAPConnectionError) -> HAPConnectionError {
        .notSent("the connection ended before it went out (\(reason))")
    }
    /// The request needs an encrypted session: call `verify(controller:pairing:)` first.
    case notVerified
    /// Pair-verify was already run on this connection (it runs once, on a cleartext connection).
    case alreadyVerified

    public var description: String {
        switch self {
        case .connectFailed(let error):
            return Self.connectFailureText(error)
        case .connectionLost(let error):
            return "the connection to the accessory was lost: \(error)"
        case .closed:
            return "the connection to the accessory was closed"
        case .requestTimedOut(let request, let seconds):
            return
                "the accessory did not answer \(request) within \(CharacteristicValue.format(seconds)) s; the connection was closed"
        case .sessionBroken(let error):
            return "the encrypted session failed (\(error))"
        case .malformedHTTP(let error):
            return "the accessory sent malformed HTTP (\(error)); the connection was closed"
        case .protocolViolation(let what):
            return "the accessory broke the HAP protocol (\(what)); the connection was closed"
        case .pairing(let error):
            return error.description
        case .refused(let status, let request):
            return "the accessory refused \(request) with \(status)"
        case .invalidResponse(let error, let request):
            return "unusable answer to \(request): \(error)"
        case .notSent(let why):
            return "the request was not sent: \(why)"
        case .notVerified:
            return "the connection is not pair-verified: run pair-verify first"
        case .alreadyVerified:
            return "pair-verify already ran on this connection"
        }
    }

    /// `cannot reach 127.0.0.1:51826: connection refused; is the accessory on and the port right?`
    private static func connectFailureText(_ error: TCPError) -> String {
        switch error {
        case .connectionRefused(let host, let port):
            return
                "cannot reach \(TCPError.endpoint(host, port)): connection refused; is the accessory on and the port right?"
        case .connectTimedOut(let host, let port, let seconds):
            return
                "cannot reach \(TCPError.endpoint(host, port)): no answer within \(CharacteristicValue.format(seconds)) s; is the accessory on and the address right?"
        case .unreachable(let host, let port, let reason):
            return "cannot reach \(TCPError.endpoint(host, port)): \(reason); check the address and the network"
        case .resolutionFailed(let host, let reason):
            return "cannot resolve \(host): \(reason); check the host name"
        default:
            return "cannot connect to the accessory: \(error)"
        }
    }
}
