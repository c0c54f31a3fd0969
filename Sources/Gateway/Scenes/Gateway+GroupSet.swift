import HomeModel
import HomeStore
import JSON
import MQTT

/// A group's command (docs/scenes-and-groups.md "The group's command"): `<base>/groups/<group>/set` and the
/// `group_set` request, fanned out to every member and answered once.
extension Gateway {
    /// `<base>/groups/<group>/set`: `GroupCommand`'s payloads. Every member's write is checked first; one
    /// that is wrong refuses the whole command with every reason, nothing written. Members whose accessory
    /// is gone are reported as missing. Answered once on `…/set/result` with every outcome.
    func handleGroupSet(_ slug: String, _ message: MQTTMessage) async {
        let request = Responder.Request(
            answerTopic: topics.group(slug) + "/set/result", properties: message.properties)
        await setGroup(slug, message.payload) { [weak self] json in
            self?.assumeIsolated { gateway in
                gateway.outbox.send(contentsOf: Responder.answer(json: json, to: request))
                gateway.flush()
            }
        }
    }

    /// Carries out a group's command (`payload` as `GroupCommand` reads it) and hands its one answer,
    /// `{"status":…,"error":…,"results":…,"missing":…}`, to `answer`: at once when refused, else when
    /// every accessory server answered. For `<base>/groups/<group>/set` and the `group_set` request.
    func setGroup(_ slug: String, _ payload: [UInt8], answer: @escaping @Sendable (JSONValue) -> Void) async {
        func refuse(_ why: String) {
            logRefusal(topics.group(slug) + "/set", why)
            answer(["status": "error", "error": .string(why)])
        }
        guard let group = parts.scenes.groups.first(where: { $0.slug == slug }) else {
            return refuse("no group \(slug); see \(topics.bridgeGroups)")
        }
        let command: GroupCommand
        switch GroupCommand.parse(payload, kind: group.kind) {
        case .failure(let error): return refuse(error.description)
        case .success(let parsed): command = parsed
        }
        var writes: [WriteCommand] = []
        var missing: [String] = []
        let on: Bool? =
            switch command.power {
            case .on?: true
            case .off?: false
            case .toggle?: groupState(group)["state"]?.stringValue != "ON"
            case nil: command.brightness.map { $0 > 0 }
            }
        for member in group.members {
            guard let layout = index.layouts[member.accessory],
                let service = layout.services.first(where: { $0.iid == member.service })
            else {
                missing.append(index.registeredSlug(of: member.accessory) ?? member.accessory.description)
                continue
            }
            func write(_ type: HAPType, _ value: JSONValue) {
                guard let topic = service.characteristics.first(where: { $0.type == type }) else { return }
                writes.append(WriteCommand(topic.address, .json(value), name: topic.slug))
            }
            if let on { write(GroupCharacteristic.on, .bool(on)) }
            if let brightness = command.brightness { write(GroupCharacteristic.brightness, JSONValue(brightness)) }
            if let position = command.position { write(GroupCharacteristic.targetPosition, JSONValue(position)) }
        }
        guard !writes.isEmpty else {
            return refuse("no member of group \(slug) can take this command (gone: \(missing.joined(separator: ", ")))")
        }
        let checked = await store.check(writes)
        let problems = writes.compactMap { write -> String? in
            guard case .invalidValue(let error)? = checked.failures[write.address] else { return nil }
            return "\(labelNow(write.address) ?? write.address.description): \(error)"
        }
        guard problems.isEmpty else {
            return refuse("nothing was written: \(problems.joined(separator: "; "))")
        }
        let gone = missing
        let finish: @Sendable ([CharacteristicAddress: HomeStore.WriteResult]) -> Void = { [weak self] outcome in
            self?.assumeIsolated { gateway in answer(gateway.groupSetAnswer(outcome, missing: gone)) }
        }
        if let outcome = await store.enqueueByServer(checked, completion: finish) {
            answer(groupSetAnswer(outcome, missing: gone))
        }
    }

    private func groupSetAnswer(_ outcome: [CharacteristicAddress: HomeStore.WriteResult], missing: [String])
        -> JSONValue
    {
        let report = WriteReport(outcome, missing: missing, label: { self.labelParts($0) })
        var answer: JSONObject = ["status": report.isSuccess ? "ok" : "error"]
        if let error = report.error { answer.append("error", .string(error)) }
        answer.append("results", .object(report.results))
        answer.append("missing", .array(report.missing.map(JSONValue.string)))
        return .object(answer)
    }
}
