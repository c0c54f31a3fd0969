import HomeModel
import HomeStore
import JSON
import MQTT

/// `<base>/<accessory>/set` (docs/DESIGN.md "Topics"): several values in one accessory write.
extension Gateway {
    /// `{"<service>":{"<characteristic>":value}}`: every value is checked first (by the store, once); if a
    /// name or a value is wrong nothing is written and one error names every problem; otherwise all go to
    /// the accessory in one request.
    func handleAccessorySet(slug: String, _ message: MQTTMessage) async {
        let request = Responder.Request(
            answerTopic: topics.accessory(slug) + "/set/result", properties: message.properties)
        guard let id = index.accessory(slug: slug), let layout = index.layouts[id] else {
            let why = GatewayError.unknownTopic(topics.accessory(slug)).description
            logRefusal(message.topic, why)
            respond(.failure(why), to: request)
            return
        }
        let shape = #"the payload must be a JSON object {"<service>":{"<characteristic>":value}}"#
        let json: JSONValue
        do throws(JSONError) {
            json = try JSONValue(parsing: message.payload)
        } catch {
            let why = "the payload is not valid JSON (\(Gateway.jsonProblem(error)))"
            logRefusal(message.topic, why)
            respond(.failure("\(why); \(shape)"), to: request)
            return
        }
        let object: [String: [String: JSONValue]]
        switch Gateway.serviceValues(json) {
        case .success(let values): object = values
        case .failure(let why):
            logRefusal(message.topic, why.description)
            respond(.failure("\(why); \(shape)"), to: request)
            return
        }
        var commands: [WriteCommand] = []
        var unknownNames: [(place: Int, text: String)] = []
        for (serviceSlug, values) in object.sorted(by: { $0.key < $1.key }) {
            guard let service = layout.services.first(where: { $0.slug == serviceSlug }) else {
                unknownNames.append((commands.count, "no service \(serviceSlug)"))
                continue
            }
            for (charSlug, scalar) in values.sorted(by: { $0.key < $1.key }) {
                guard let topic = service.characteristics.first(where: { $0.slug == charSlug }) else {
                    unknownNames.append((commands.count, "no characteristic \(serviceSlug)/\(charSlug)"))
                    continue
                }
                commands.append(WriteCommand(topic.address, .json(scalar), name: charSlug))
            }
        }
        let checked = await store.check(commands)
        // In the payload's order: the names not found before a command are listed before its error. The
        // accessory's own state (offline) is each write's outcome, as for a write that was sent.
        var problems: [String] = []
        var unknown = unknownNames[...]
        for (place, command) in commands.enumerated() {
            while let first = unknown.first, first.place <= place { problems.append(unknown.removeFirst().text) }
            if case .invalidValue(let error)? = checked.failures[command.address] { problems.append(error.description) }
        }
        problems += unknown.map(\.text)
        if commands.isEmpty, problems.isEmpty { problems.append("the payload names no characteristic") }
        guard problems.isEmpty else {
            logRefusal(message.topic, problems.joined(separator: "; "))
            respond(.failure(problems.joined(separator: "; ")), to: request)
            return
        }
        let outcome = await store.enqueue(
            checked,
            completion: { [weak self] outcome in
                self?.assumeIsolated { $0.finishAccessorySet(layout, outcome, request) }
            },
            settled: { [weak self] settlement in
                self?.assumeIsolated { $0.settleAccessorySet(layout, settlement, request) }
            })
        if let outcome { finishAccessorySet(layout, outcome, request) }
    }

    /// The second answer for one characteristic of a multi-write whose write was `unknown`, once it was
    /// read back (docs/DESIGN.md "Writes").
    func settleAccessorySet(_ layout: AccessoryLayout, _ settlement: WriteSettlement, _ request: Responder.Request) {
        guard let topic = layout.byIID[settlement.address.iid] else { return }
        outbox.send(
            contentsOf: Responder.answer(
                settled: settlement, service: topic.serviceSlug, characteristic: topic.slug, to: request))
        flush()
    }

    /// `{"<service>":{"<characteristic>":scalar}}`, or what is wrong with its shape (a service that is not
    /// an object, a value that is an array or an object), naming the place. A key given twice: the last one
    /// counts (`JSONObject`).
    static func serviceValues(_ json: JSONValue) -> Result<[String: [String: JSONValue]], GatewayError> {
        guard let object = json.objectValue else {
            return .failure(.invalidPayload("the payload is not a JSON object"))
        }
        var out: [String: [String: JSONValue]] = [:]
        for service in object {
            guard let inner = service.value.objectValue else {
                return .failure(
                    .invalidPayload("\(JSONString.quoted(service.key)) is not an object of characteristics"))
            }
            var values: [String: JSONValue] = [:]
            for characteristic in inner {
                switch characteristic.value {
                case .array, .object:
                    return .failure(
                        .invalidPayload(
                            "the value of \(JSONString.quoted(service.key + "/" + characteristic.key)) is an array or an object; a value is a number, a string, true or false"
                        ))
                default: values[characteristic.key] = characteristic.value
                }
            }
            out[service.key] = values
        }
        return .success(out)
    }

    /// Answers a multi-write with each characteristic's outcome, in the accessory's order.
    func finishAccessorySet(
        _ layout: AccessoryLayout, _ outcome: [CharacteristicAddress: HomeStore.WriteResult],
        _ request: Responder.Request
    ) {
        let outcomes = outcome.sorted { $0.key < $1.key }.compactMap { address, result -> Responder.WriteOutcome? in
            guard let topic = layout.byIID[address.iid] else { return nil }
            return Responder.WriteOutcome(service: topic.serviceSlug, characteristic: topic.slug, result: result)
        }
        outbox.send(contentsOf: Responder.answer(outcomes, to: request))
        flush()
    }
}
