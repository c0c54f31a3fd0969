import HomeModel
import HomeStore
public import MQTT

/// Commands from the broker (docs/DESIGN.md "Topics"): each message is routed by its topic, checked and
/// queued by the store in one call, and answered by the `Responder`. A command that waits for an accessory
/// (a read, a snapshot, an identify) runs in its accessory server's lane (`CommandLanes`), so that it holds
/// up only the commands to that server. The state a command changes is
/// published from the store's change stream (`Gateway+Following.swift`), never from its answer.
extension Gateway {
    /// Handles one incoming message on a command topic: checks it, then carries it out at once
    /// (`perform(_:)`), or in its accessory server's lane when it waits for the accessory or the lane is
    /// open.
    func handle(_ incoming: MQTTMessage) async {
        guard isReady, !isStopped else { return }
        if incoming.topic == configuration.homeAssistant.statusTopic {
            handleHomeAssistantStatus(incoming)
            flush()
            return
        }
        guard let command = topics.command(for: incoming.topic) else { return }
        let message = incoming
        if message.retain {
            // A retained command would be carried out again on every reconnect (Tasmota #744 and others),
            // so it is cleared from the broker, as the start-up convergence would clear it anyway (a pair
            // request also holds a setup code, which the broker must not keep). An empty one is that clear.
            guard !message.payload.isEmpty else { return }
            // Counted apart from the topic's other refusals.
            if let line = parts.commands.refusals.admit(
                "ignored a retained command on \(message.topic) and cleared it from the broker: publish commands without the retain flag",
                topic: "retained " + message.topic)
            {
                logger.warning(line)
            }
            outbox.clear(message.topic)
            flush()
            return
        }
        // Checked before any work is done: a command whose answer would go where the gateway must not
        // publish is neither carried out nor answered, since its result topic would tell its sender
        // what the refused answer held.
        guard admitsResponseTopic(of: message) else { return }
        if message.payload.isEmpty, message.droppedPayloadSize == nil, command.isWrite {
            // With MQTT 3.1.1 the broker forwards the clearing of a retained command live without the retain
            // flag: taken as a command, it would write an empty name or fail with an error nobody asked
            // for. An empty string is written with `""`. A request that names a response topic awaits an
            // answer, which no clear of a retained message does.
            if message.properties.responseTopic != nil || message.properties.correlationData != nil {
                refuse(command, message, .invalidPayload(Self.emptyCommandRefusal))
                flush()
                return
            }
            if let line = parts.commands.refusals.admit(
                "ignored an empty message on \(message.topic): an empty message clears a retained one; to write an empty string, send \"\"",
                topic: "empty " + message.topic)
            {
                logger.info(line)
            }
            return
        }
        noteInbound()
        let size = message.droppedPayloadSize ?? message.payload.count
        guard size <= configuration.maxCommandSize else {
            refuse(command, message, GatewayError.payloadTooLarge(size: size, limit: configuration.maxCommandSize))
            flush()
            return
        }
        if let slug = excludedSlug(of: command) {
            refuse(command, message, .excludedAccessory(slug))
            flush()
            return
        }
        let pending = CommandLanes.Pending(command: command, message: message)
        if let lane = lane(of: command, message) {
            if parts.commands.lanes.isBusy(lane.server) {
                parts.commands.lanes.append(pending, to: lane.server)
                return
            }
            if lane.waitsForAccessory {
                parts.commands.lanes.open(lane.server)
                Task { [weak self] in await self?.runLane(lane.server, first: pending) }
                return
            }
        }
        await perform(pending)
    }

    /// The accessory server a command goes to, and whether it waits for the accessory's answer (a read,
    /// a snapshot, an identify) rather than only queueing a write; nil for a command that names no
    /// accessory (it is handled at once).
    func lane(of command: TopicScheme.Command, _ message: MQTTMessage) -> (server: String, waitsForAccessory: Bool)? {
        switch command {
        case .set(let state):
            let address = index.hs(stateTopic: state)?.hue ?? index.characteristic(stateTopic: state)?.address
            return address.map { ($0.accessory.serverID, false) }
        case .get(let state):
            let id = camera(snapshotTopic: state) ?? index.characteristic(stateTopic: state)?.address.accessory
            return id.map { ($0.serverID, true) }
        case .accessorySet(let slug): return index.accessory(slug: slug).map { ($0.serverID, false) }
        case .bridgeRequest("identify"):
            guard case .success(let request) = Self.requestObject(message.payload),
                case .success(let id) = accessoryID(in: request)
            else { return nil }
            return (id.serverID, true)
        case .bridgeRequest, .groupSet: return nil
        }
    }

    /// Works through the lane of `server` from `first` until nothing waits in it, so that its commands are
    /// carried out in the order they came while other servers' commands go on.
    func runLane(_ server: String, first: CommandLanes.Pending) async {
        var next: CommandLanes.Pending? = first
        while let pending = next, !isStopped {
            await perform(pending)
            next = parts.commands.lanes.next(for: server)
        }
    }

    /// Carries out an admitted command and publishes what it queued.
    func perform(_ pending: CommandLanes.Pending) async {
        let message = pending.message
        switch pending.command {
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
        case .groupSet(let group): await handleGroupSet(group, message)
        }
        flush()
    }

    /// The answer to an empty `/set` that asks for one (it names a response topic).
    public static let emptyCommandRefusal =
        "an empty message is no command (it is how a retained one is cleared); to write an empty string, send \"\""

    /// Refuses a command before reading its payload: logged, and answered where its answers go.
    func refuse(_ command: TopicScheme.Command, _ message: MQTTMessage, _ error: GatewayError) {
        logRefusal(message.topic, error.description)
        let properties = message.properties
        switch command {
        case .set(let state):
            respond(
                .failure(error.description),
                to: Responder.Request(answerTopic: state + "/set/result", properties: properties))
        case .get: respond(.failure(error.description), to: Responder.Request(answerTopic: nil, properties: properties))
        case .accessorySet(let slug):
            respond(
                .failure(error.description),
                to: Responder.Request(answerTopic: topics.accessory(slug) + "/set/result", properties: properties))
        case .groupSet(let group):
            respond(
                .failure(error.description),
                to: Responder.Request(answerTopic: topics.group(group) + "/set/result", properties: properties))
        case .bridgeRequest(let name):
            let request = Responder.Request(answerTopic: topics.bridgeResponse(name), properties: properties)
            outbox.send(contentsOf: Responder.answer(.failure(error), transaction: nil, to: request))
        }
    }

    /// Whether a received command may take the place of an unread one on its topic in the MQTT client's
    /// queue (`MQTTInboundLimits.collapses`): a `/set` or `/get` of one characteristic, not retained,
    /// with no response topic or correlation data, so that only the newest value of a burst is written
    /// and nobody waits for the answer to the one replaced. Bridge requests and multi-writes never
    /// collapse: each says something different.
    public static func collapsesCommand(baseTopic: String) -> @Sendable (MQTTMessage) -> Bool {
        let scheme = TopicScheme(base: baseTopic)
        return { message in
            guard !message.retain, message.properties.responseTopic == nil, message.properties.correlationData == nil
            else {
                return false
            }
            switch scheme.command(for: message.topic) {
            case .set?, .get?: return true
            default: return false
            }
        }
    }

    /// Whether the gateway answers on the response topic of `message`, if it names one
    /// (`ResponseTopicPolicy`). A refusal is logged at warning, at most once a minute for each response
    /// topic (`RefusalLog`): MQTT does not tell a subscriber who published a message, so the response
    /// topic, chosen by the sender, stands for the client.
    func admitsResponseTopic(of message: MQTTMessage) -> Bool {
        guard let responseTopic = message.properties.responseTopic else { return true }
        var why = parts.commands.responseTopics.refusal(of: responseTopic)
        if why == nil, responseTopic.hasPrefix(parts.commands.responseTopics.responsePrefix),
            index.accessory(slug: Slug.responseLevel) != nil
        {
            // An accessory that kept the slug from before it was reserved publishes there.
            why = "the response topic is under an accessory's topics"
        }
        guard let why else { return true }
        let shown = String(responseTopic.prefix(80)).debugDescription
        if let line = parts.commands.refusals.admit(
            "refused \(message.topic) with the response topic \(shown): \(why); the command was not carried out or answered",
            topic: "response " + String(responseTopic.prefix(256)))
        {
            logger.warning(line)
        }
        return false
    }

    /// Logs a refused command at info, with the start of its payload when given, at most once a minute
    /// per topic (`RefusalLog`).
    func logRefusal(_ topic: String, _ reason: String, payload: String? = nil) {
        let shown = payload.map { " = \($0.prefix(64))" } ?? ""
        if let line = parts.commands.refusals.admit("refused \(topic)\(shown): \(reason)", topic: topic) {
            logger.info(line)
        }
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
            logRefusal(message.topic, GatewayError.unknownTopic(state).description)
            respond(.failure(GatewayError.unknownTopic(state).description), to: request)
            return
        }
        guard let text = message.payloadString else {
            logRefusal(message.topic, "the payload is not UTF-8 text")
            respond(.failure("\(topic.slug): the payload is not UTF-8 text"), to: request)
            return
        }
        let command = SetCommand(
            address: topic.address, state: state, topic: message.topic, text: text, request: request)
        let outcome = await store.enqueueWrite(
            WriteCommand(topic.address, .text(text), name: topic.slug),
            completion: { [weak self] outcome in
                // The store calls this on its executor, which is this actor's.
                self?.assumeIsolated { $0.finishSet(command, outcome) }
            },
            settled: { [weak self] settlement in
                self?.assumeIsolated { $0.settleSet(command, settlement) }
            })
        if let outcome { finishSet(command, outcome) }
    }

    /// The second answer to a `/set` whose write was `unknown`: the value read back says whether the
    /// accessory carried it out (docs/DESIGN.md "Writes"). The state topic has that value already.
    func settleSet(_ command: SetCommand, _ settlement: WriteSettlement) {
        let verdict = settlement.applied ? "was carried out" : "was not carried out"
        logger.info(
            "the write of \(settlement.written) to \(command.address) without an answer \(verdict)",
            ["accessory": command.address.accessory.description])
        respond(.settled(settlement), to: command.request)
        flush()
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
            logRefusal(command.topic, "\(error)", payload: command.text)
            respond(.failure("\(error)"), to: command.request)
        case .failure(let error):
            // Once a minute per topic, like refusals: a client repeating a command to a dead accessory
            // must not fill the log.
            let what: String
            if case .unconfirmed = error { what = "got no answer" } else { what = "failed" }
            if let line = parts.commands.refusals.admit(
                "write of \(address) \(what): \(error)", topic: "failed " + command.topic)
            {
                logger.warning("\(line)", ["accessory": address.accessory.description])
            }
            respond(.failure(error), to: command.request)
        }
        flush()
    }

    /// `…/<characteristic>/get`: read from the accessory; the store delivers the value, changed or not,
    /// through its change stream, which republishes it. Answered on a response topic only.
    func handleGet(state: String, _ message: MQTTMessage) async {
        let request = Responder.Request(answerTopic: nil, properties: message.properties)
        guard let topic = index.characteristic(stateTopic: state) else {
            logRefusal(message.topic, GatewayError.unknownTopic(state).description)
            respond(.failure(GatewayError.unknownTopic(state).description), to: request)
            return
        }
        let address = topic.address
        let results = await store.read([address])
        switch results[address] ?? .failure(.failed("no answer")) {
        case .success(let value):
            respond(.success(value), to: request)
        case .failure(.readRefused(.writeOnlyCharacteristic)):
            // Refused by the store without asking the accessory: a user's mistake, not the accessory's.
            let reason = "\(topic.slug): the characteristic is write-only and cannot be read"
            logRefusal(message.topic, reason)
            respond(.failure(reason, hapStatus: .writeOnlyCharacteristic), to: request)
        case .failure(let error):
            if let line = parts.commands.refusals.admit(
                "read of \(address) failed: \(error)", topic: "failed " + message.topic)
            {
                logger.warning("\(line)", ["accessory": address.accessory.description])
            }
            respond(.failure(error), to: request)
        }
    }
}
