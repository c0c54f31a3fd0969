public import HomeModel
public import JSON

/// One value to write with `PUT /characteristics` (HAP spec §6.7.2.2): the characteristic, its value as
/// HAP JSON, and whether to ask for a write response (`"r":true`, for characteristics with `wr`).
public struct HAPCharacteristicWriteItem: Sendable, Hashable {
    /// The characteristic, `aid.iid`.
    public var id: HAPCharacteristicID
    /// The value as the characteristic's format writes it (see `JSONValue(encoding:format:)`).
    public var value: JSONValue
    /// Whether to send `"r":true`, asking for the write response.
    public var wantsResponse: Bool

    public init(id: HAPCharacteristicID, value: JSONValue, wantsResponse: Bool = false) {
        self.id = id
        self.value = value
        self.wantsResponse = wantsResponse
    }

    /// A write of `value` to a characteristic of `format`, converted as `JSONValue(encoding:format:)` does.
    /// - Throws: `HAPModelError.valueMismatch` when the format cannot carry the value.
    public init(
        id: HAPCharacteristicID, value: CharacteristicValue, format: CharacteristicFormat, wantsResponse: Bool = false
    ) throws(HAPModelError) {
        self.init(id: id, value: try JSONValue(encoding: value, format: format), wantsResponse: wantsResponse)
    }
}

/// The HAP requests a controller sends after pair-verify, with bodies in compact JSON (docs/hap-notes.md
/// §4.1–§4.7).
public enum HAPRequests {
    /// `GET /accessories`.
    public static func accessories() -> HTTPRequest { .get("/accessories") }

    /// `GET /characteristics?id=1.10,1.11[&meta=1][&perms=1][&type=1][&ev=1]`, the ids in the given order
    /// (HAP spec §6.7.4; docs/hap-notes.md §4.2). `meta` adds format, unit and constraints to each item,
    /// `perms` the permissions, `type` the type, `events` whether this connection is subscribed.
    public static func readCharacteristics(
        _ ids: [HAPCharacteristicID], meta: Bool = false, perms: Bool = false, type: Bool = false, events: Bool = false
    ) -> HTTPRequest {
        // Appended in place: no array of descriptions joined, and no array of flags, per read.
        var path = "/characteristics?id="
        path.reserveCapacity(path.utf8.count + ids.count * 8 + 32)
        for (index, id) in ids.enumerated() {
            if index > 0 { path.append(",") }
            path.append(String(id.aid))
            path.append(".")
            path.append(String(id.iid))
        }
        if meta { path.append("&meta=1") }
        if perms { path.append("&perms=1") }
        if type { path.append("&type=1") }
        if events { path.append("&ev=1") }
        return .get(path)
    }

    /// `PUT /characteristics` writing values: `{"characteristics":[{"aid":1,"iid":10,"value":true}]}`, with
    /// `"r":true` on items that want a write response, and the top-level `"pid"` of a timed write prepared
    /// with `prepare(ttlMilliseconds:pid:)` (docs/hap-notes.md §4.3, §4.5).
    public static func writeCharacteristics(_ writes: [HAPCharacteristicWriteItem], pid: UInt64? = nil) -> HTTPRequest {
        let items: [JSONValue] = writes.map { w in
            var item: JSONObject = ["aid": JSONValue(w.id.aid), "iid": JSONValue(w.id.iid), "value": w.value]
            if w.wantsResponse { item["r"] = true }
            return .object(item)
        }
        var body: JSONObject = ["characteristics": .array(items)]
        if let pid { body["pid"] = JSONValue(pid) }
        return .put("/characteristics", json: JSONValue.object(body).encoded())
    }

    /// `PUT /characteristics` turning events on or off (`"ev":true|false`), one request per aid in
    /// ascending aid order, as iOS sends them: one big request stopped events on bridges with many
    /// accessories (HA core#37996; aiohomekit pairing.py `_update_subscriptions`).
    public static func subscribe(_ ids: [HAPCharacteristicID], enable: Bool) -> [HTTPRequest] {
        var byAID: [Int: [HAPCharacteristicID]] = [:]
        for id in ids { byAID[id.aid, default: []].append(id) }
        return byAID.keys.sorted().map { aid in
            let items: [JSONValue] = (byAID[aid] ?? []).map {
                ["aid": JSONValue($0.aid), "iid": JSONValue($0.iid), "ev": .bool(enable)]
            }
            return .put("/characteristics", json: JSONValue.object(["characteristics": .array(items)]).encoded())
        }
    }

    /// `PUT /prepare` with `{"ttl":<ms>,"pid":<id>}`, the first step of a timed write (HAP spec §6.7.2.4;
    /// docs/hap-notes.md §4.5). The accessory answers `{"status":0}`; read it with
    /// `HAPCharacteristicResult.status(httpStatus:body:)`.
    public static func prepare(ttlMilliseconds: Int, pid: UInt64) -> HTTPRequest {
        .put("/prepare", json: JSONValue.object(["ttl": JSONValue(ttlMilliseconds), "pid": JSONValue(pid)]).encoded())
    }

    /// `POST /resource` asking a camera for a JPEG snapshot: `{"aid":2,"resource-type":"image",
    /// "image-width":640,"image-height":480}` (docs/hap-notes.md §4.9). The `aid` names the camera behind a
    /// bridge; the accessory answers 200 with the JPEG as the body (`Content-Type: image/jpeg`).
    public static func snapshot(aid: Int, width: Int, height: Int) -> HTTPRequest {
        let body: JSONObject = [
            "aid": JSONValue(aid), "resource-type": "image", "image-width": JSONValue(width),
            "image-height": JSONValue(height),
        ]
        return HTTPRequest(
            method: .post, path: "/resource", contentType: HAPContentType.json, body: JSONValue.object(body).encoded())
    }

    /// `POST /identify` without a body, for an accessory that is not paired yet (docs/hap-notes.md §4.7):
    /// 204 when it identifies itself; 400 with `{"status":-70401}` when it is paired.
    public static func identifyUnpaired() -> HTTPRequest { HTTPRequest(method: .post, path: "/identify") }
}
