public import HomeModel
public import JSON

/// The outcome for one characteristic of a `GET` or `PUT /characteristics` (HAP spec §6.7.2, §6.7.4;
/// docs/hap-notes.md §4.2–§4.4): a HAP status, and the value when the accessory sent one (a read, or a
/// write with `"r":true`).
public struct HAPCharacteristicResult: Sendable, Hashable {
    /// The characteristic, `aid.iid`.
    public var id: HAPCharacteristicID
    /// `.success`, or the accessory's error (positive codes made negative, as MyQ sends them).
    public var status: HAPStatus
    /// The value as HAP JSON; nil when the item had none or `null`. Read it with
    /// `value(format:)`.
    public var value: JSONValue?
    /// The whole item as the accessory sent it: with `meta=1`, `perms=1`, `type=1` or `ev=1` it holds
    /// `format`, `unit`, `minValue`, …, `perms`, `type`, `ev`. Empty when the result was not listed
    /// (204, or one status for the whole request).
    public var item: JSONObject

    public init(id: HAPCharacteristicID, status: HAPStatus, value: JSONValue? = nil, item: JSONObject = [:]) {
        self.id = id
        self.status = status
        self.value = value
        self.item = item
    }

    /// The value read according to the characteristic's format (see `CharacteristicValue.decoded`).
    /// - Throws: `HAPModelError.valueMismatch` when the format cannot carry it.
    public func value(format: CharacteristicFormat) throws(HAPModelError) -> CharacteristicValue? {
        guard let value else { return nil }
        return try CharacteristicValue.decoded(fromHAP: value, format: format)
    }

    /// Reads the answer to `GET` or `PUT /characteristics` into one result per characteristic:
    /// - 204 No Content: every requested characteristic succeeded, without values.
    /// - 200 or 207 with `{"characteristics":[…]}`: each item's `status` (0 when absent) and `value`.
    ///   Items for characteristics that were not requested are returned too. With an error status (4xx,
    ///   5xx) an item without a `status` has the body's `status`, and the answer is an `.httpStatus` error
    ///   when the body has none: a failed request never reads as a success.
    /// - a body `{"status":<code>}` (with any HTTP status; docs/hap-notes.md §4.2): that status for every
    ///   requested characteristic.
    ///
    /// A requested characteristic the accessory did not list gets `-70409` (resource does not exist).
    /// - Throws: `HAPModelError.invalidJSON` or `.unexpectedBody` for a 2xx body that is not a HAP result,
    ///   and for an item whose `status` is not a whole number (`"-70402"`): whatever it meant, it cannot be
    ///   taken for a success; `.httpStatus` for an error status (4xx, 5xx) without a HAP status in the body.
    public static func parse(httpStatus: Int, body: [UInt8], requested: [HAPCharacteristicID]) throws(HAPModelError)
        -> [HAPCharacteristicID: HAPCharacteristicResult]
    {
        let success = (200..<300).contains(httpStatus)
        var results: [HAPCharacteristicID: HAPCharacteristicResult] = [:]
        func fill(_ status: HAPStatus) {
            for id in requested where results[id] == nil {
                results[id] = HAPCharacteristicResult(id: id, status: status)
            }
        }
        guard httpStatus != 204, let json = try parseBody(body, httpStatus: httpStatus) else {
            fill(.success)
            return results
        }
        if let items = json["characteristics"]?.arrayValue {
            let bodyStatus = try statusNumber(json["status"], of: "the answer")
            for item in items {
                guard let object = item.objectValue, let id = HAPCharacteristicID(item: item) else { continue }
                let status: HAPStatus
                if let code = try statusNumber(object["status"], of: "\(id)") {
                    status = code
                } else if success {
                    status = .success
                } else {
                    guard let bodyStatus, !bodyStatus.isSuccess else { throw .httpStatus(httpStatus) }
                    status = bodyStatus
                }
                let value = object["value"].flatMap { $0.isNull ? nil : $0 }
                results[id] = HAPCharacteristicResult(id: id, status: status, value: value, item: object)
            }
            fill(bodyStatus ?? .resourceDoesNotExist)
            return results
        }
        if let code = json["status"]?.intValue {
            let status = HAPStatus(normalizing: code)
            guard success || !status.isSuccess else { throw .httpStatus(httpStatus) }
            fill(status)
            return results
        }
        if success { throw .unexpectedBody("expected a \"characteristics\" array or a \"status\"") }
        throw .httpStatus(httpStatus)
    }

    /// A `status` member as a HAP status (positive codes made negative); nil when there is none.
    /// - Throws: `.unexpectedBody` when it is there but not a whole number.
    private static func statusNumber(_ member: JSONValue?, of what: @autoclosure () -> String) throws(HAPModelError)
        -> HAPStatus?
    {
        guard let member, !member.isNull else { return nil }
        guard let code = member.intValue else {
            throw .unexpectedBody("the status of \(what()) is not a number: \(String(member.description.prefix(40)))")
        }
        return HAPStatus(normalizing: code)
    }

    /// Reads a bare status answer such as `PUT /prepare`'s `{"status":0}`: the body's status (positive
    /// codes made negative), or success for a 2xx without a body.
    /// - Throws: `HAPModelError.httpStatus` for an error status without a HAP status in the body;
    ///   `.invalidJSON` or `.unexpectedBody` for a 2xx body that is not `{"status":…}`.
    public static func status(httpStatus: Int, body: [UInt8]) throws(HAPModelError) -> HAPStatus {
        let success = (200..<300).contains(httpStatus)
        guard let json = try parseBody(body, httpStatus: httpStatus) else { return .success }
        guard let code = json["status"]?.intValue else {
            if success { throw .unexpectedBody("expected {\"status\":…}") }
            throw .httpStatus(httpStatus)
        }
        let status = HAPStatus(normalizing: code)
        if !success, status.isSuccess { throw .httpStatus(httpStatus) }
        return status
    }

    /// The body as JSON; nil for a 2xx without a body.
    /// - Throws: `.invalidJSON` for a 2xx body that is not JSON, `.httpStatus` for any other status whose
    ///   body is not JSON (or empty).
    private static func parseBody(_ body: [UInt8], httpStatus: Int) throws(HAPModelError) -> JSONValue? {
        let success = (200..<300).contains(httpStatus)
        if success, body.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) { return nil }
        do throws(JSONError) {
            return try JSONValue(parsing: body)
        } catch {
            if success { throw .invalidJSON(error) }
            throw .httpStatus(httpStatus)
        }
    }
}
