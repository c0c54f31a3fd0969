import HomeModel
import HomeStore
import MQTT

/// Commands from the broker (docs/DESIGN.md "Topics"): each message is routed by its topic, checked and
/// queued by the store in one call, and answered by the `Responder`. The state a command changes is
/// published from the store's change stream (`Gateway+Following.swift`), never from its answer.
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
            if let colour = index.hs(stateTopic: state) {
                await handleHSSet(colour, message)
            } else {
                await handleSet(state: state, message)
            }
        case .get(let state):
            if let camera = camera(snapshotTopic: state) {
                await handleSnapshotGet(camera, message)
            } else {
                await handleGet(state: state, message)
            }
        case .accessorySet(let slug): await handleAccessorySet(slug: slug, message)
        case .bridgeRequest(let name): await handleBridgeRequest(name, message)
        }
        flush()
    }

    /// Queues an answer to a request.
    func respond(_ result: CommandResult, to request: Responder.Request) {
        outbox.send(contentsOf: Responder.answer(result, to: request))
    }

    /// `…/<characteristic>/set`: check and queue the write in one call to the store. The state topic
    /// changes only after the accessory accepted the write (lesson 3), through the store's change stream.
    func handleSet(state: String, _ message: MQTTMessage) async {
        let request = Responder.Request(answerTopic: state + "/set/result", properties: message.properties)
        guard let topic = index.characteristic(stateTopic: state) else {
            logger.info("refused \(message.topic): \(GatewayError.unknownTopic(state))")
            respond(.failure(GatewayError.unknownTopic(state).description), to: request)
            return
        }
        guard let text = message.payloadString else {
            logger.info("refused \(message.topic): the payload is not UTF-8 text")
            respond(.failure("\(topic.slug): the payload is not UTF-8 text"), to: request)
            return
        }
        let command = SetCommand(address: topic.address, state: state, topic: message.topic, text: text, request: request)
        let outcome = await store.enqueueWrite(WriteCommand(topic.address, .text(text), name: topic.slug), completion: { [weak self] outcome in
            // The store calls this on its executor, which is this actor's.
            self?.assumeIsolated { $0.finishSet(command, outcome) }
        })
        if let outcome { finishSet(command, outcome) }
    }

    /// What a `/set` needs for its answer once its write has an outcome.
    struct SetCommand: Sendable {
        let address: CharacteristicAddress
        let state: String
        let topic: String
        let text: String
        let request: Responder.Request
    }

    /// Answers a `/set`. A confirmed value came through the store's change stream just before, so a
    /// client that sees `ok` finds the state topic updated.
    func finishSet(_ command: SetCommand, _ outcome: HomeStore.WriteResult) {
        let address = command.address
        switch outcome {
        case .success(let confirmed):
            respond(.success(confirmed), to: command.request)
        case .failure(.unknownAccessory), .failure(.unknownCharacteristic):
            respond(.failure(GatewayError.unknownTopic(command.state).description), to: command.request)
        case .failure(.invalidValue(let error)):
            logger.info("refused \(command.topic) = \(command.text.prefix(64)): \(error)")
            respond(.failure("\(error)"), to: command.request)
        case .failure(let error):
            logger.warning("write of \(address) failed: \(error)", ["accessory": address.accessory.description])
            respond(.failure(error), to: command.request)
        }
        flush()
    }

    /// `…/<characteristic>/get`: read from the accessory; the store delivers the value, changed or not,
    /// through its change stream, which republishes it. Answered on a response topic only.
    func handleGet(state: String, _ message: MQTTMessage) async {
        let request = Responder.Request(answerTopic: nil, properties: message.properties)
        guard let address = index.characteristic(stateTopic: state)?.address else {
            logger.info("get on \(state): \(GatewayError.unknownTopic(state))")
            respond(.failure(GatewayError.unknownTopic(state).description), to: request)
            return
        }
        let results = await store.read([address])
        switch results[address] ?? .failure(.failed("no answer")) {
        case .success(let value):
            respond(.success(value), to: request)
        case .failure(let error):
            logger.warning("read of \(address) failed: \(error)", ["accessory": address.accessory.description])
            respond(.failure(error), to: request)
        }
    }
}
