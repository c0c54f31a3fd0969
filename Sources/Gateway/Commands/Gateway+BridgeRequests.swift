import HomeModel
import HomeStore
public import JSON
import MQTT

extension Gateway {
    /// `<base>/bridge/request/<command>` with a JSON object; answered on `<base>/bridge/response/<command>`
    /// as `{"status":"ok"|"error","data":{…},"error":"…","transaction":…}`, with the request's
    /// `transaction` echoed (the zigbee2mqtt convention).
    func handleBridgeRequest(_ command: String, _ message: MQTTMessage) async {
        let request = Self.requestObject(message.payload)
        let transaction = Self.echoedTransaction((try? request.get())?["transaction"])
        let answer = Responder.Request(answerTopic: topics.bridgeResponse(command), properties: message.properties)
        if case .success(let object) = request, Self.managementRequests.contains(command) {
            startManagementRequest(command, object, transaction: transaction, answer: answer)
            return
        }
        if case .success(let object) = request, Self.sceneRequests.contains(command) {
            // A recall answers when the accessories did, from the store's completion.
            await sceneRequest(command, object) { [weak self] reply in
                self?.assumeIsolated { gateway in
                    if let error = reply.error { gateway.logRefusal(message.topic, error) }
                    gateway.outbox.send(
                        contentsOf: Responder.answer(
                            data: reply.data, error: reply.error, transaction: transaction, to: answer))
                    gateway.flush()
                }
            }
            return
        }
        let outcome = await perform(command, request)
        // Without the payload, which may hold a setup code (a malformed pair request).
        if case .failure(let error) = outcome { logRefusal(message.topic, error.description) }
        outbox.send(contentsOf: Responder.answer(outcome, transaction: transaction, to: answer))
    }

    /// The longest `transaction` string echoed, in characters.
    public static let maxTransactionLength = 64

    /// A request's `transaction` as its answer echoes it: a number, or a string of at most
    /// `maxTransactionLength` characters; nil (not echoed) for anything else, so that a request cannot
    /// make the gateway publish a payload of its sender's choosing (docs/security.md).
    static func echoedTransaction(_ value: JSONValue?) -> JSONValue? {
        switch value {
        case .int?, .uint?, .double?: return value
        case .string(let text)? where text.count <= maxTransactionLength: return value
        default: return nil
        }
    }

    /// Runs the bridge request `command` with `payload` (a JSON object) as `bridge/request/<command>` does,
    /// for a caller other than MQTT (the web page): the same operation, so the two never disagree. Returns
    /// the answer's `data`, or the error `bridge/response/<command>` would carry. What the operation
    /// publishes (`bridge/event`, moved topics) is published as for an MQTT request.
    public func bridgeRequest(_ command: String, payload: [UInt8]) async -> Result<JSONValue, GatewayError> {
        let outcome = await perform(command, Self.requestObject(payload))
        flush()
        return outcome
    }

    /// A request's payload as its JSON object, or why it is none. The reason names where the JSON broke
    /// but never a byte of it: a malformed pair request holds a setup code, and the reason is answered
    /// and logged.
    static func requestObject(_ payload: [UInt8]) -> Result<JSONObject, GatewayError> {
        let value: JSONValue
        do throws(JSONError) {
            value = try JSONValue(parsing: payload)
        } catch {
            return .failure(.invalidPayload("the request must be a JSON object: \(jsonProblem(error))"))
        }
        guard let object = value.objectValue else {
            return .failure(.invalidPayload("the request must be a JSON object"))
        }
        return .success(object)
    }

    /// Where and why a payload is not JSON (`invalid JSON at byte 12: expected ',' or '}' there`, `nested
    /// deeper than 128 levels`), without quoting a byte of it: a payload may hold a setup code.
    static func jsonProblem(_ error: JSONError) -> String {
        if case .unexpectedByte(_, let expected) = error.reason {
            return "invalid JSON at byte \(error.offset): expected \(expected) there"
        }
        return error.description
    }

    /// The outcome of a request that is not one of `managementRequests` (those run on `Management`, as
    /// their callers start them).
    private func perform(_ command: String, _ parsed: Result<JSONObject, GatewayError>) async -> Result<
        JSONValue, GatewayError
    > {
        let request: JSONObject
        switch parsed {
        case .success(let object): request = object
        case .failure(let error): return .failure(error)
        }
        switch command {
        case "identify": return await identify(request)
        case "rename": return await rename(request)
        case "health_check": return await healthCheck()
        case Self.migrateRequest: return migrateDiscovery(request)
        case _ where Self.sceneRequests.contains(command):
            let reply = await sceneRequest(command, request)
            if let error = reply.error { return .failure(.invalidPayload(error)) }
            return .success(reply.data)
        default:
            let known =
                (["identify", "rename", "health_check", Self.migrateRequest] + Self.managementRequests.sorted()
                + Self.sceneRequests.sorted()).joined(separator: ", ")
            return .failure(.invalidPayload("unknown request '\(command)'; the requests are \(known)"))
        }
    }

    /// Finds the accessory a request names by slug or by id (`"accessory":"kitchen_lamp"`).
    func accessoryID(in request: JSONObject) -> Result<AccessoryID, GatewayError> {
        guard let name = request["accessory"]?.stringValue, !name.isEmpty else {
            return .failure(.invalidPayload(#"name the accessory: {"accessory":"<slug or id>"}"#))
        }
        if let id = index.accessory(named: name) { return .success(id) }
        // An excluded accessory keeps its slug: "no accessory" would send the user looking for one that
        // is there.
        if let id = index.registeredAccessory(slug: name) ?? AccessoryID(name), isExcluded(id) {
            return .failure(.excludedAccessory(index.registeredSlug(of: id) ?? name))
        }
        return .failure(.invalidPayload("no accessory '\(name)'; see bridge/accessories"))
    }

    /// `health_check`: `{}` answers `{"healthy":true|false}` (`isHealthy`) and publishes `bridge/health`
    /// now.
    private func healthCheck() async -> Result<JSONValue, GatewayError> {
        await publishHealth()
        return .success(.object(["healthy": .bool(isHealthy)]))
    }

    /// `identify`: `{"accessory":"<slug>"}` makes the accessory identify itself (blink, beep).
    private func identify(_ request: JSONObject) async -> Result<JSONValue, GatewayError> {
        switch accessoryID(in: request) {
        case .failure(let e): return .failure(e)
        case .success(let id):
            do {
                try await store.identify(id)
                let slug = index.layouts[id]?.slug ?? id.description
                return .success(.object(["accessory": .string(slug)]))
            } catch {
                return .failure(.invalidPayload("identify failed: \(error)"))
            }
        }
    }

    /// `rename`: `{"accessory":"<slug or id>","to":"<new slug>"}` moves an accessory to new topics; every old
    /// topic is cleared.
    private func rename(_ request: JSONObject) async -> Result<JSONValue, GatewayError> {
        let id: AccessoryID
        switch accessoryID(in: request) {
        case .failure(let e): return .failure(e)
        case .success(let found): id = found
        }
        guard let to = request["to"]?.stringValue else {
            return .failure(.invalidPayload(#"give the new name: {"accessory":"…","to":"new_slug"}"#))
        }
        switch await moveTopics(of: id, to: to) {
        case .failure(let error): return .failure(error)
        case .success(let old):
            return .success(.object(["accessory": .string(to), "from": .string(old)]))
        }
    }

    /// Moves a published accessory to the topics of slug `to`: every old topic is cleared, `accessory_renamed`
    /// is emitted and `bridge/accessories` published again (nothing happens when `to` is its slug already).
    /// Returns the old slug; fails with `GatewayError.invalidSlug` when `to` cannot be used, or when the
    /// accessory is not published.
    func moveTopics(of id: AccessoryID, to: String) async -> Result<String, GatewayError> {
        guard let entry = published[id], let oldLayout = index.layouts[id], let accessory = await store.accessory(id)
        else {
            return .failure(.invalidPayload("accessory \(id) is gone"))
        }
        let old = oldLayout.slug
        // Nothing to move, and no rename event for subscribers to act on.
        guard to != old else { return .success(old) }
        do throws(GatewayError) {
            try await renameSlug(id, to: to)
        } catch {
            if let owner = index.registeredAccessory(slug: to), owner != id, isExcluded(owner) {
                return .failure(.invalidSlug(to, reason: "accessory \(owner) keeps it while its options exclude it"))
            }
            return .failure(error)
        }
        // Topics the new slug publishes again (the discovery configs, keyed by the accessory id) are not
        // cleared first: Home Assistant then updates its entities in place and keeps their settings.
        unregister(id, clear: false)
        register(accessory, reachable: entry.reachable)
        let kept = published[id]?.topics ?? []
        for topic in inClearingOrder(entry.topics.union(retainedTopics(of: oldLayout))) where !kept.contains(topic) {
            outbox.clear(topic)
        }
        emit(.accessoryRenamed(id: id, slug: to, from: old, to: to))
        await publishAccessoryList()
        // The web page links accessories by slug, and no store change tells it that one moved.
        resendExclusions()
        return .success(old)
    }
}
