internal import Foundation
import Gateway
import HomeModel
import HomeStore
import JSON
import SystemSupport

extension WebPage {
    /// `GET /api/accessories`: `bridge/accessories`' entries with each one's availability reason, last
    /// event (ISO 8601, null when none came since the start) and values (as `accessoryPage` has them), so
    /// that the dashboard shows every accessory's state from one request.
    func accessoryList() async -> HTTPResponse {
        let descriptions = await gateway.accessoryDescriptions()
        var entries: [String] = []
        for description in descriptions {
            entries.append(await entry(description, values: await values(of: description)))
        }
        return .json("[\(entries.joined(separator: ","))]")
    }

    /// `GET /api/accessories/<slug or id>`: one accessory's description (services, characteristics with
    /// format, unit, min, max, step, valid values, permissions) and every characteristic's value as its
    /// state topic carries it, by iid.
    func accessoryPage(_ name: String) async -> HTTPResponse {
        guard let description = await description(named: name) else { return unknownAccessory(name) }
        return .json(await entry(description, values: await values(of: description)))
    }

    /// Every characteristic's value as its state topic carries it, by iid (null before the first read).
    private func values(of description: AccessoryDescription) async -> JSONObject {
        var values = JSONObject()
        if let id = AccessoryID(description.id), let accessory = await store.accessory(id) {
            for characteristic in accessory.allCharacteristics {
                values.append(String(characteristic.iid), characteristic.value.map { .string($0.mqttPayload) } ?? .null)
            }
        }
        return values
    }

    /// `POST /api/accessories/<slug>/characteristics/<iid>` with `{"value":…}`: the write a `/set` with
    /// that payload makes (a JSON string is the payload's text, `true` or `42` as written), through the
    /// store's write queue; answered when the accessory answered, with `{"status":"ok","value":"…"}` (the
    /// confirmed value) or, with 422, the error `…/set/result` would carry.
    func write(accessory name: String, iid text: String, _ body: JSONObject) async -> HTTPResponse {
        guard let description = await description(named: name), let id = AccessoryID(description.id) else {
            return unknownAccessory(name)
        }
        let entry = description.services.flatMap(\.characteristics).first { String($0.iid) == text }
        guard let iid = Int(text), let entry else {
            return .json(status: 404, error: "accessory '\(description.slug)' has no characteristic \(text)")
        }
        guard let value = body["value"], let payload = Self.payload(value) else {
            return .json(status: 400, error: #"give the value: {"value":true}, {"value":50} or {"value":"text"}"#)
        }
        let command = WriteCommand(CharacteristicAddress(accessory: id, iid: iid), .text(payload), name: entry.slug)
        let result = await withCheckedContinuation { (done: CheckedContinuation<HomeStore.WriteResult, Never>) in
            Task {
                if let refused = await store.enqueueWrite(command, completion: { done.resume(returning: $0) }) {
                    done.resume(returning: refused)
                }
            }
        }
        switch result {
        case .success(let value):
            let answer: JSONValue = ["status": "ok", "value": .string(value.mqttPayload)]
            return .json(answer.description)
        case .failure(let error): return .json(status: 422, error: error.description)
        }
    }

    private func description(named name: String) async -> AccessoryDescription? {
        await gateway.accessoryDescriptions().first { $0.slug == name || $0.id == name }
    }

    private func unknownAccessory(_ name: String) -> HTTPResponse {
        .json(status: 404, error: "no accessory '\(name)'; see /api/accessories")
    }

    /// The description as JSON with `reason`, `last_event` and, when given, `values`.
    private func entry(_ description: AccessoryDescription, values: JSONObject?) async -> String {
        let id = AccessoryID(description.id)
        let reason = await id.asyncMap { await live.reason($0) } ?? nil
        let last = await id.asyncMap { await live.lastEvent($0) } ?? nil
        var extra: JSONObject = [
            "reason": description.reachable ? .null : .string(reason ?? "unreachable"),
            "last_event": last.map { .string(UTCTimestamp.string($0, milliseconds: false)) } ?? .null,
        ]
        if let values { extra.append("values", .object(values)) }
        var json = AccessoryDescription.json([description])
        // `json([…])` is `[{…}]`: the object's members, then the page's own.
        json.removeFirst()
        json.removeLast(2)
        let members = JSONValue.object(extra).description.dropFirst().dropLast()
        return json + "," + members + "}"
    }

    /// A `/set` payload from a JSON value: a string as it is, a boolean or number as JSON writes it.
    private static func payload(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): return text
        case .null, .array, .object: return nil
        case .bool, .int, .uint, .double: return value.description
        }
    }
}

extension Optional {
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async -> T) async -> T? {
        guard let self else { return nil }
        return await transform(self)
    }
}
