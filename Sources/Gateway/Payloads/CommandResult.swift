public import HomeModel
public import HomeStore
import JSON

/// The answer to a `/set`, published on `…/set/result` and, for MQTT 5 requests, on the response topic
/// (docs/DESIGN.md "Topics"): `{"status":"ok","value":…}` or
/// `{"status":"error","error":"…","hap_status":-70410}`; for a write that went out without an answer,
/// `{"status":"unknown","error":"…","hap_status":-70408}`, and later a second answer once the value was
/// read back, `{"status":"ok","settled":"applied","value":…}` or
/// `{"status":"error","settled":"not_applied","error":"…","value":…}` (docs/DESIGN.md "Writes"). Never
/// retained.
public struct CommandResult: Sendable, Hashable {
    /// What the answer says about the command.
    public enum Status: String, Sendable, Hashable {
        case ok
        case error
        /// The write went out and no answer came: it may have been carried out.
        case unknown
    }

    public var status: Status
    public var value: CharacteristicValue?
    public var error: String?
    public var hapStatus: HAPStatus?
    /// For the second answer to an unknown write: `applied` or `not_applied`; nil otherwise.
    public var settled: String?

    public var ok: Bool { status == .ok }

    public static func success(_ value: CharacteristicValue?) -> CommandResult {
        CommandResult(status: .ok, value: value)
    }

    public static func failure(_ message: String, hapStatus: HAPStatus? = nil) -> CommandResult {
        CommandResult(status: .error, error: message, hapStatus: hapStatus)
    }

    /// The store's error; `.unconfirmed` is the `unknown` answer.
    public static func failure(_ error: HomeStoreError) -> CommandResult {
        var result = failure(error.description, hapStatus: error.hapStatus)
        if case .unconfirmed = error { result.status = .unknown }
        return result
    }

    /// The second answer to a write that was `unknown`: what the read-back found.
    public static func settled(_ settlement: WriteSettlement) -> CommandResult {
        guard !settlement.applied else {
            return CommandResult(status: .ok, value: settlement.value, settled: "applied")
        }
        let holds = settlement.value.map { "\($0)" } ?? "no value"
        return CommandResult(
            status: .error, value: settlement.value,
            error: "the write of \(settlement.written) was not carried out: the accessory holds \(holds)",
            settled: "not_applied")
    }

    /// The JSON payload.
    public var json: String { jsonValue.description }

    /// The payload as a JSON object, for an answer that holds several (`Responder`).
    var jsonValue: JSONValue {
        var object: JSONObject = ["status": .string(status.rawValue)]
        if let settled { object.append("settled", .string(settled)) }
        if let error { object.append("error", .string(error)) }
        if status == .ok || settled != nil { object.append("value", value?.jsonValue ?? .null) }
        if let hapStatus { object.append("hap_status", JSONValue(hapStatus.rawValue)) }
        return .object(object)
    }
}
