public import HomeModel
public import HomeStore
import JSON

/// The answer to a `/set`, published on `…/set/result` and, for MQTT 5 requests, on the response topic
/// (docs/DESIGN.md "Topics"): `{"status":"ok","value":…}` or
/// `{"status":"error","error":"…","hap_status":-70410}`. Never retained.
public struct CommandResult: Sendable, Hashable {
    public var ok: Bool
    public var value: CharacteristicValue?
    public var error: String?
    public var hapStatus: HAPStatus?

    public static func success(_ value: CharacteristicValue?) -> CommandResult {
        CommandResult(ok: true, value: value, error: nil, hapStatus: nil)
    }

    public static func failure(_ message: String, hapStatus: HAPStatus? = nil) -> CommandResult {
        CommandResult(ok: false, value: nil, error: message, hapStatus: hapStatus)
    }

    public static func failure(_ error: HomeStoreError) -> CommandResult {
        failure(error.description, hapStatus: error.hapStatus)
    }

    /// The JSON payload.
    public var json: String { jsonValue.description }

    /// The payload as a JSON object, for an answer that holds several (`Responder`).
    var jsonValue: JSONValue {
        guard !ok else { return ["status": "ok", "value": value?.jsonValue ?? .null] }
        var object: JSONObject = ["status": "error", "error": .string(error ?? "failed")]
        if let hapStatus { object.append("hap_status", JSONValue(hapStatus.rawValue)) }
        return .object(object)
    }
}
