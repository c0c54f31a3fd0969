import HomeModel
import HomeStore
import MQTT
internal import Foundation

extension Gateway {
    /// Handles one incoming message on a command topic.
    func handle(_ message: MQTTMessage) async {
        guard isReady, !isStopped else { return }
        if message.topic == configuration.homeAssistant.statusTopic {
            handleHomeAssistantStatus(message)
            flush()
            return
        }
        guard let command = topics.command(for: message.topic) else { return }
        if message.retain {
            // A retained command would be carried out again on every reconnect (Tasmota #744 and others).
            // An empty one is the user clearing it, as the warning says.
            if !message.payload.isEmpty {
                logger.warning("ignored a retained command on \(message.topic): publish commands without the retain flag, and clear it with: mosquitto_pub -r -n -t '\(message.topic)'")
            }
            return
        }
        switch command {
        case .set(let state):
            if let hs = hsByStateTopic[state] {
                await handleHSSet(hs, message)
            } else {
                await handleSet(state: state, message)
            }
        case .get(let state): await handleGet(state: state, message)
        case .accessorySet(let slug): await handleAccessorySet(slug: slug, message)
        case .bridgeRequest(let name): await handleBridgeRequest(name, message)
        }
        flush()
    }

    /// `…/<characteristic>/set`: check and queue the write in one call to the store. The state topic
    /// changes only after the accessory accepted the write (lesson 3), through the store's change stream.
    func handleSet(state: String, _ message: MQTTMessage) async {
        let resultTopic = state + "/set/result"
        guard let address = addressByStateTopic[state], let topic = published[address.accessory]?.layout.byIID[address.iid] else {
            logger.info("refused \(message.topic): \(GatewayError.unknownTopic(state))")
            respond(.failure(GatewayError.unknownTopic(state).description), on: resultTopic, to: message)
            return
        }
        guard let text = message.payloadString else {
            logger.info("refused \(message.topic): the payload is not UTF-8 text")
            respond(.failure("\(topic.slug): the payload is not UTF-8 text"), on: resultTopic, to: message)
            return
        }
        let command = SetCommand(
            address: address, stateTopic: state, commandTopic: message.topic, text: text, properties: message.properties)
        let outcome = await store.enqueueWrite(WriteCommand(address, .text(text), name: topic.slug), completion: { [weak self] outcome in
            // The store calls this on its executor, which is this actor's.
            self?.assumeIsolated { $0.finishSet(command, outcome) }
        })
        if let outcome { finishSet(command, outcome) }
    }

    /// What a `/set` needs for its answer once its write has an outcome.
    struct SetCommand: Sendable {
        let address: CharacteristicAddress
        let stateTopic: String
        let commandTopic: String
        let text: String
        let properties: MQTTProperties
        var resultTopic: String { stateTopic + "/set/result" }
    }

    /// Publishes the result. The confirmed value came through the store's change stream just before, so
    /// a client that sees `ok` finds the state topic updated.
    func finishSet(_ command: SetCommand, _ outcome: Result<CharacteristicValue, HomeStoreError>) {
        let address = command.address
        switch outcome {
        case .success(let confirmed):
            respond(.success(confirmed), on: command.resultTopic, properties: command.properties)
        case .failure(.unknownAccessory), .failure(.unknownCharacteristic):
            respond(.failure(GatewayError.unknownTopic(command.stateTopic).description), on: command.resultTopic, properties: command.properties)
        case .failure(.invalidValue(let error)):
            logger.info("refused \(command.commandTopic) = \(command.text.prefix(64)): \(error)")
            respond(.failure("\(error)"), on: command.resultTopic, properties: command.properties)
        case .failure(let error):
            logger.warning("write of \(address) failed: \(error)", ["accessory": address.accessory.description])
            respond(.failure(error), on: command.resultTopic, properties: command.properties)
        }
        flush()
    }

    /// `…/<characteristic>/get`: read from the accessory; the store delivers the value, changed or not,
    /// through its change stream, which republishes it.
    func handleGet(state: String, _ message: MQTTMessage) async {
        guard let address = addressByStateTopic[state] else {
            logger.info("get on \(state): \(GatewayError.unknownTopic(state))")
            respondIfAsked(.failure(GatewayError.unknownTopic(state).description), to: message)
            return
        }
        let results = await store.read([address])
        switch results[address] ?? .failure(.failed("no answer")) {
        case .success(let value):
            respondIfAsked(.success(value), to: message)
        case .failure(let error):
            logger.warning("read of \(address) failed: \(error)", ["accessory": address.accessory.description])
            respondIfAsked(.failure(error), to: message)
        }
    }

    /// `<base>/<accessory>/set` with `{"<service>":{"<characteristic>":value}}`: every value is checked
    /// first; if one is wrong nothing is written; otherwise all go to the accessory in one request.
    func handleAccessorySet(slug: String, _ message: MQTTMessage) async {
        let resultTopic = topics.accessory(slug) + "/set/result"
        guard let id = published.first(where: { $0.value.layout.slug == slug })?.key, let layout = published[id]?.layout else {
            respond(.failure(GatewayError.unknownTopic(topics.accessory(slug)).description), on: resultTopic, to: message)
            return
        }
        let shape = #"the payload must be a JSON object {"<service>":{"<characteristic>":value}}"#
        let json: Any
        do {
            json = try JSONSerialization.jsonObject(with: Data(message.payload))
        } catch {
            logger.info("refused \(message.topic): the payload is not valid JSON")
            respond(.failure("the payload is not valid JSON; \(shape)"), on: resultTopic, to: message)
            return
        }
        guard let parsed = json as? [String: Any], let object = Gateway.serviceValues(parsed) else {
            logger.info("refused \(message.topic): the payload is not a JSON object of services")
            respond(.failure(shape), on: resultTopic, to: message)
            return
        }
        // Every value is checked by the store before anything is queued; a wrong name or value anywhere stops
        // them all. The accessory's own state (offline) is each write's outcome, as for a write that was sent.
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
        // In the payload's order: the names that were not found before a command are listed before its error.
        var problems: [String] = []
        var unknown = unknownNames[...]
        for (index, command) in commands.enumerated() {
            while let first = unknown.first, first.place <= index { problems.append(unknown.removeFirst().text) }
            if case .invalidValue(let error)? = checked.failures[command.address] { problems.append(error.description) }
        }
        problems += unknown.map(\.text)
        if commands.isEmpty, problems.isEmpty { problems.append("the payload names no characteristic") }
        guard problems.isEmpty else {
            logger.info("refused \(message.topic): \(problems.joined(separator: "; "))")
            respond(.failure(problems.joined(separator: "; ")), on: resultTopic, to: message)
            return
        }
        let properties = message.properties
        let outcome = await store.enqueue(checked) { [weak self] outcome in
            self?.assumeIsolated { $0.finishAccessorySet(id, outcome, resultTopic: resultTopic, properties: properties) }
        }
        if let outcome { finishAccessorySet(id, outcome, resultTopic: resultTopic, properties: properties) }
    }

    /// `{"<service>":{"<characteristic>":scalar}}`, or nil when the shape is different.
    static func serviceValues(_ object: [String: Any]) -> [String: [String: JSONScalar]]? {
        var out: [String: [String: JSONScalar]] = [:]
        for (service, value) in object {
            guard let inner = value as? [String: Any] else { return nil }
            var values: [String: JSONScalar] = [:]
            for (characteristic, raw) in inner {
                guard let scalar = JSONScalar(foundation: raw) else { return nil }
                values[characteristic] = scalar
            }
            out[service] = values
        }
        return out
    }

    func finishAccessorySet(
        _ id: AccessoryID, _ outcome: [CharacteristicAddress: Result<CharacteristicValue, HomeStoreError>],
        resultTopic: String, properties: MQTTProperties
    ) {
        guard let layout = published[id]?.layout else { return }
        var failures: [String] = []
        var perService: [String: [String]] = [:]
        for (address, result) in outcome.sorted(by: { $0.key < $1.key }) {
            guard let topic = layout.byIID[address.iid] else { continue }
            switch result {
            case .success(let value):
                perService[topic.serviceSlug, default: []].append("\(JSONFragment.string(topic.slug)):\(CommandResult.success(value).json)")
            case .failure(let error):
                failures.append("\(topic.serviceSlug)/\(topic.slug): \(error)")
                perService[topic.serviceSlug, default: []].append("\(JSONFragment.string(topic.slug)):\(CommandResult.failure(error).json)")
            }
        }
        let results = perService.sorted { $0.key < $1.key }.map { "\(JSONFragment.string($0.key)):{\($0.value.joined(separator: ","))}" }
        var json = failures.isEmpty ? "{\"status\":\"ok\"" : "{\"status\":\"error\",\"error\":\(JSONFragment.string(failures.joined(separator: "; ")))"
        json += ",\"results\":{\(results.joined(separator: ","))}}"
        publishTransient(resultTopic, json)
        if let responseTopic = properties.responseTopic {
            publishTransient(responseTopic, json, properties: MQTTProperties(correlationData: properties.correlationData))
        }
        flush()
    }

    /// Publishes a result on `topic`, and on the MQTT 5 response topic with the correlation data when the
    /// request carried one.
    func respond(_ result: CommandResult, on topic: String, to message: MQTTMessage) {
        respond(result, on: topic, properties: message.properties)
    }

    func respond(_ result: CommandResult, on topic: String, properties: MQTTProperties) {
        publishTransient(topic, result.json)
        if let responseTopic = properties.responseTopic {
            publishTransient(responseTopic, result.json, properties: MQTTProperties(correlationData: properties.correlationData))
        }
    }

    func respondIfAsked(_ result: CommandResult, to message: MQTTMessage) {
        guard let responseTopic = message.properties.responseTopic else { return }
        publishTransient(responseTopic, result.json, properties: MQTTProperties(correlationData: message.properties.correlationData))
    }
}
