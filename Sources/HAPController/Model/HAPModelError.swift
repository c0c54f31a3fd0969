public import HomeModel
public import JSON

/// Why a HAP JSON body could not be turned into accessories, results or events, or a value into HAP
/// JSON. Prints as one line.
public enum HAPModelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The body is not JSON.
    case invalidJSON(JSONError)
    /// The body is JSON but not the shape HAP defines for it; the text says what was expected.
    case unexpectedBody(String)
    /// The accessory answered the whole request with one HAP status, e.g. `{"status":-70401}` with
    /// HTTP 401 (docs/hap-notes.md §4.2, §4.4).
    case status(HAPStatus, httpStatus: Int)
    /// The accessory answered with an HTTP error status and no HAP status in the body (e.g. 470
    /// Connection Authorization Required, 503 when it has too many connections).
    case httpStatus(Int)
    /// A value that the characteristic's format cannot carry, e.g. `"abc"` for `uint8`.
    case valueMismatch(format: CharacteristicFormat, value: String)

    public var description: String {
        switch self {
        case .invalidJSON(let e): return e.description
        case .unexpectedBody(let what): return "unexpected HAP body: \(what)"
        case .status(let s, let http): return "the accessory answered HTTP \(http) with \(s)"
        case .httpStatus(let code):
            return "the accessory answered HTTP \(code)\(Self.meaning(code).map { " (\($0))" } ?? "")"
        case .valueMismatch(let f, let v):
            let shown = v.count > 64 ? String(v.prefix(61)) + "..." : v
            return "\(shown) is not a valid \(f.rawValue) value"
        }
    }

    /// Meanings of the HTTP codes HAP accessories use (HAP-NodeJS HAPServer.ts `HAPHTTPCode`).
    private static func meaning(_ code: Int) -> String? {
        switch code {
        case 400: return "bad request"
        case 404: return "not found"
        case 405: return "method not allowed"
        case 422: return "unprocessable entity"
        case 429: return "too many requests"
        case 470: return "connection authorization required: pair-verify first"
        case 500: return "internal server error"
        case 503: return "service unavailable: the accessory has too many connections"
        default: return nil
        }
    }
}

/// Something in an `/accessories` body that was skipped or adjusted while the rest was read, so that one
/// odd characteristic does not cost the whole accessory.
public struct HAPModelProblem: Sendable, Hashable, CustomStringConvertible {
    /// What the reader did about it.
    public enum Action: String, Sendable, Hashable {
        /// The entry was left out.
        case skipped
        /// The entry was kept with a best-effort reading (e.g. an unknown format inferred from the value).
        case adjusted
    }

    /// Where: `aid 2`, `aid 2 service iid 9`, `aid 2 characteristic iid 13`, or `body`.
    public var location: String
    /// Whether the entry was left out or read best-effort.
    public var action: Action
    /// Why, in words.
    public var reason: String

    public init(location: String, action: Action, reason: String) {
        self.location = location
        self.action = action
        self.reason = reason
    }

    /// `aid 2 characteristic iid 13 skipped: "type" is not a HAP type UUID`.
    public var description: String { "\(location) \(action.rawValue): \(reason)" }
}
