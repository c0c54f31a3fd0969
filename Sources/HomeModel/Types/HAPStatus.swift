/// A HAP status code (HAP spec §6.7.1.4, Table 6-11; aiohomekit `statuscodes.py`). 0 is success; errors
/// are negative. Some accessories send positive codes: `init(normalizing:)` turns them negative.
public struct HAPStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible, Codable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Makes `code` negative when an accessory sent it positive (MyQ does).
    public init(normalizing code: Int) { self.rawValue = code > 0 ? -code : code }

    public static let success = HAPStatus(rawValue: 0)
    public static let insufficientPrivileges = HAPStatus(rawValue: -70401)
    public static let serviceCommunicationFailure = HAPStatus(rawValue: -70402)
    public static let resourceBusy = HAPStatus(rawValue: -70403)
    public static let readOnlyCharacteristic = HAPStatus(rawValue: -70404)
    public static let writeOnlyCharacteristic = HAPStatus(rawValue: -70405)
    public static let notificationNotSupported = HAPStatus(rawValue: -70406)
    public static let outOfResources = HAPStatus(rawValue: -70407)
    public static let operationTimedOut = HAPStatus(rawValue: -70408)
    public static let resourceDoesNotExist = HAPStatus(rawValue: -70409)
    public static let invalidValueInRequest = HAPStatus(rawValue: -70410)
    public static let insufficientAuthorization = HAPStatus(rawValue: -70411)
    public static let notAllowedInCurrentState = HAPStatus(rawValue: -70412)

    public var isSuccess: Bool { rawValue == 0 }

    /// The meaning of the code in words, e.g. "invalid value in write request".
    public var meaning: String {
        switch rawValue {
        case 0: return "success"
        case -70401: return "insufficient privileges"
        case -70402: return "unable to communicate with the accessory"
        case -70403: return "resource busy, try again"
        case -70404: return "cannot write to a read-only characteristic"
        case -70405: return "cannot read a write-only characteristic"
        case -70406: return "notification not supported"
        case -70407: return "out of resources"
        case -70408: return "operation timed out"
        case -70409: return "resource does not exist"
        case -70410: return "invalid value in write request"
        case -70411: return "insufficient authorization"
        case -70412: return "not allowed in current state"
        default: return "unknown HAP status"
        }
    }

    /// `HAP status -70410 (invalid value in write request)`.
    public var description: String { "HAP status \(rawValue) (\(meaning))" }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(Int.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}
