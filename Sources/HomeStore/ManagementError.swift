/// Why a management operation (pair, unpair, refresh, options) failed: one line a user can act on, the
/// same whether the command line, the MQTT bridge API or the web page asked.
public enum ManagementError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request is incomplete or malformed; the text says what to give.
    case invalidRequest(String)
    /// The setup code is not 8 digits written `XXX-XX-XXX`.
    case invalidSetupCode
    /// The accessory refused the setup code.
    case wrongSetupCode
    /// The accessory is paired already (with another controller, or with this one); the text says what to do.
    case alreadyPaired(String)
    /// The accessory could not be reached, or what answered is not a HomeKit accessory; the text says where.
    case unreachable(String)
    /// No accessory or pairing goes by this name; the text names it and where the names are listed.
    case unknownAccessory(String)
    /// Another pairing is under way; the text says with what.
    case busy(String)
    /// The operation needs the running gateway (`hap2mqtt run`).
    case notRunning(String)
    /// Anything else, as one line.
    case failed(String)

    public var description: String {
        switch self {
        case .invalidRequest(let text), .alreadyPaired(let text), .unreachable(let text), .unknownAccessory(let text),
            .busy(let text), .notRunning(let text), .failed(let text):
            return text
        case .invalidSetupCode: return "the setup code must be 8 digits written XXX-XX-XXX (for example 123-45-678)"
        case .wrongSetupCode: return "wrong setup code: check the 8-digit code on the accessory"
        }
    }
}
