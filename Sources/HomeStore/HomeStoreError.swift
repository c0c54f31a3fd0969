public import HomeModel

/// Why a read, write or identify through the store failed. Prints as one line a user can act on.
public enum HomeStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The store has not finished its first sync; commands are not accepted yet (docs/DESIGN.md lesson 1).
    case notReady
    /// No accessory with this id.
    case unknownAccessory(AccessoryID)
    /// The accessory has no characteristic with this iid.
    case unknownCharacteristic(CharacteristicAddress)
    /// The value broke a rule of the characteristic (format, range, step, valid values, length), or the
    /// characteristic has no `pw` permission (`ValueError.Rule.readOnly`).
    case invalidValue(ValueError)
    /// The accessory is offline.
    case unreachable(AccessoryID, String)
    /// The accessory refused the write (or identify) with this HAP status.
    case status(HAPStatus)
    /// The accessory refused the read with this HAP status (-70405 for a write-only characteristic).
    case readRefused(HAPStatus)
    /// No answer within the write time-out, in seconds.
    case timedOut(seconds: Double)
    /// The write was sent and no answer came (`why`): the accessory may have carried it out. It is read
    /// back when the accessory answers again, and the writer learns the outcome then
    /// (`WriteSettlement`, docs/DESIGN.md "Writes").
    case unconfirmed(String)
    /// The write was never sent (`why`): the accessory will not carry it out.
    case notSent(String)
    /// The provider failed otherwise.
    case failed(String)

    public var description: String {
        switch self {
        case .notReady: return "the gateway has not finished its first sync yet; try again in a moment"
        case .unknownAccessory(let id): return "no accessory \(id)"
        case .unknownCharacteristic(let a): return "no characteristic \(a.iid) on accessory \(a.accessory)"
        case .invalidValue(let e): return e.description
        case .unreachable(let id, let why): return "accessory \(id) is offline: \(why)"
        case .status(let s): return "the accessory refused the write: \(s)"
        case .readRefused(let s): return "the accessory refused the read: \(s)"
        case .timedOut(let s): return "the accessory did not answer within \(CharacteristicValue.format(s)) s"
        case .unconfirmed(let why):
            return "\(why); the write may have been carried out: it is read back when the accessory answers again"
        case .notSent(let why): return "the write was not sent (\(why)); it will not be carried out"
        case .failed(let why): return why
        }
    }

    /// The HAP status to report with this error, when there is one.
    public var hapStatus: HAPStatus? {
        switch self {
        case .status(let s), .readRefused(let s): return s
        case .unreachable, .notSent: return .serviceCommunicationFailure
        case .timedOut, .unconfirmed: return .operationTimedOut
        case .invalidValue(let error): return error.rule == .readOnly ? .readOnlyCharacteristic : .invalidValueInRequest
        case .unknownCharacteristic, .unknownAccessory: return .resourceDoesNotExist
        case .notReady, .failed: return nil
        }
    }
}
