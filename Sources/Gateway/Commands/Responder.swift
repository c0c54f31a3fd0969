import HomeModel
import HomeStore
import JSON
import MQTT

/// Every answer the gateway gives to a request (docs/DESIGN.md "Topics"): the result of a `/set`, an
/// `hs/set` or an `<accessory>/set` on its `…/set/result` topic, the response to a bridge request on
/// `bridge/response/<command>`, and for each a copy on the MQTT 5 response topic the request named, with
/// its correlation data echoed. A `/get` is answered on a response topic only. Answers are QoS 1 and
/// never retained.
enum Responder {
    /// Where one request's answer goes.
    struct Request: Sendable, Hashable {
        /// The topic the answer is published on (`…/set/result`, `bridge/response/<command>`); nil when the
        /// request has none (`/get`).
        var answerTopic: String?
        /// The request's MQTT 5 properties: its response topic and correlation data, if any.
        var properties: MQTTProperties
    }

    /// One characteristic's outcome in the answer to a multi-write (`<accessory>/set`).
    struct WriteOutcome: Sendable, Hashable {
        var service: String
        var characteristic: String
        var result: Result<CharacteristicValue, HomeStoreError>
    }

    /// A single command's answer: `{"status":"ok","value":…}` or `{"status":"error","error":"…",…}`.
    static func answer(_ result: CommandResult, to request: Request) -> [MQTTMessage] {
        messages(result.json, to: request)
    }

    /// A multi-write's answer, its outcomes in the order given (grouped by service, services sorted):
    /// `{"status":"ok","results":{"<service>":{"<characteristic>":{"status":"ok","value":…}}}}`; when any
    /// failed, `"status":"error"` and an `"error"` that names each failed characteristic and why
    /// (`"status":"unknown"` when each of them is a write sent without an answer).
    static func answer(_ outcomes: [WriteOutcome], to request: Request) -> [MQTTMessage] {
        var failures: [String] = []
        var knownFailures = 0
        var perService: [String: JSONObject] = [:]
        for outcome in outcomes {
            let result: CommandResult
            switch outcome.result {
            case .success(let value): result = .success(value)
            case .failure(let error):
                failures.append("\(outcome.service)/\(outcome.characteristic): \(error)")
                result = .failure(error)
                if result.status != .unknown { knownFailures += 1 }
            }
            perService[outcome.service, default: JSONObject()].append(outcome.characteristic, result.jsonValue)
        }
        var results = JSONObject()
        for (service, values) in perService.sorted(by: { $0.key < $1.key }) { results.append(service, .object(values)) }
        // `unknown` when every characteristic that is not `ok` is unknown: nothing is known to have failed.
        let status = failures.isEmpty ? "ok" : knownFailures == 0 ? "unknown" : "error"
        var answer: JSONObject = ["status": .string(status)]
        if !failures.isEmpty { answer.append("error", .string(failures.joined(separator: "; "))) }
        answer.append("results", .object(results))
        return messages(JSONValue.object(answer).description, to: request)
    }

    /// The second answer to a multi-write for one characteristic whose write was `unknown`:
    /// `{"status":"ok"|"error","settled":"applied"|"not_applied","results":{"<service>":{"<characteristic>":…}}}`,
    /// the inner result as on `/set/result` (`CommandResult.settled`).
    static func answer(settled: WriteSettlement, service: String, characteristic: String, to request: Request)
        -> [MQTTMessage]
    {
        let result = CommandResult.settled(settled)
        var answer: JSONObject = ["status": .string(result.status.rawValue)]
        if let verdict = result.settled { answer.append("settled", .string(verdict)) }
        var inner = JSONObject()
        inner.append(characteristic, result.jsonValue)
        var results = JSONObject()
        results.append(service, .object(inner))
        answer.append("results", .object(results))
        return messages(JSONValue.object(answer).description, to: request)
    }

    /// A bridge request's answer (the zigbee2mqtt convention): `{"status":"ok","data":<data>}` or
    /// `{"status":"error","data":{},"error":"…"}`, with the request's `transaction` echoed.
    static func answer(_ outcome: Result<JSONValue, GatewayError>, transaction: JSONValue?, to request: Request)
        -> [MQTTMessage]
    {
        var answer: JSONObject
        switch outcome {
        case .success(let data): answer = ["status": "ok", "data": data]
        case .failure(let error):
            answer = ["status": "error", "data": .object([:]), "error": .string(error.description)]
        }
        if let transaction { answer.append("transaction", transaction) }
        return messages(JSONValue.object(answer).description, to: request)
    }

    /// A bridge request's answer that carries `data` also when it failed in part (a scene recall that
    /// wrote some values): `{"status":"ok"|"error","data":<data>,"error":"…"}`, `transaction` echoed.
    static func answer(data: JSONValue, error: String?, transaction: JSONValue?, to request: Request) -> [MQTTMessage] {
        var answer: JSONObject = ["status": error == nil ? "ok" : "error", "data": data]
        if let error { answer.append("error", .string(error)) }
        if let transaction { answer.append("transaction", transaction) }
        return messages(JSONValue.object(answer).description, to: request)
    }

    /// A JSON answer on the request's answer topic and response topic (a group's `/set`).
    static func answer(json: JSONValue, to request: Request) -> [MQTTMessage] {
        messages(json.description, to: request)
    }

    /// The payload on the answer topic, and on the response topic with the correlation data.
    private static func messages(_ payload: String, to request: Request) -> [MQTTMessage] {
        var out: [MQTTMessage] = []
        if let topic = request.answerTopic {
            out.append(MQTTMessage(topic: topic, string: payload, qos: .atLeastOnce, retain: false))
        }
        if let responseTopic = request.properties.responseTopic {
            out.append(
                MQTTMessage(
                    topic: responseTopic, string: payload, qos: .atLeastOnce, retain: false,
                    properties: MQTTProperties(correlationData: request.properties.correlationData)))
        }
        return out
    }
}
