import SystemSupport

extension MQTTClient {
    /// The retained messages the broker holds on topics matching `filters`, read on a short connection of
    /// its own: a clean session with the client id `<clientID>-scan` (the broker assigns one when the
    /// client's is empty) and no last will, so that this client's subscriptions and session stay as they
    /// are and no command reaches it twice. The broker sends the retained messages when the subscription
    /// is made; the scan then publishes an empty message on `endMarker` (a topic of its own, not
    /// retained) and takes every retained message that came before it, so it needs no quiet spell to
    /// guess the end. Messages forwarded live meanwhile (without the retain flag) are left out.
    ///
    /// The scan's connection has inbound limits of its own, not this client's: it must see every retained
    /// message (a bound on unread messages would shed some, or the marker), and it keeps only the payloads
    /// `keepingPayloadOf` wants, so that a broker holding thousands of retained topics costs their topics'
    /// memory, not their payloads'. A message whose payload was not kept arrives with an empty payload and
    /// `droppedPayloadSize` set (the broker never sends an empty retained message).
    /// - Throws: what `connect()`, `subscribe(_:qos:retainAsPublished:)` and `publish(_:)` throw for the
    ///   scan's connection; `MQTTError.timedOut` when the marker did not come back within `timeout` (the
    ///   broker refuses the marker topic, or is very slow).
    public func retainedMessages(
        matching filters: [String], endMarker: String, timeout: Duration = .seconds(10),
        keepingPayloadOf keep: @escaping @Sendable (_ topic: String) -> Bool = { _ in true }
    ) async throws(MQTTError) -> [MQTTMessage] {
        var settings = connection.configuration
        settings.clientID = settings.clientID.isEmpty ? "" : settings.clientID + "-scan"
        settings.will = nil
        settings.sessionExpiry = nil
        settings.inbound = MQTTInboundLimits(keepsPayload: keep)
        let scanner = try MQTTClient(configuration: settings, logger: connection.logger)
        let messages = scanner.messages
        let collected = await withDeadline(timeout) { () async -> Result<[MQTTMessage], MQTTError> in
            do throws(MQTTError) {
                try await scanner.connect()
                let covered = filters.contains { MQTTTopic.matches(filter: $0, topic: endMarker) }
                try await scanner.subscribe(covered ? filters : filters + [endMarker], qos: .atLeastOnce)
                try scanner.publish(MQTTMessage(topic: endMarker, payload: [], qos: .atLeastOnce, retain: false))
            } catch {
                return .failure(error)
            }
            var retained: [MQTTMessage] = []
            for await message in messages {
                if message.topic == endMarker { return .success(retained) }
                if message.retain { retained.append(message) }
            }
            return .failure(.notConnected)
        }
        await scanner.disconnect()
        guard let collected else {
            throw .timedOut("the retained messages of \(filters.joined(separator: ", ")) did not end within \(timeout)")
        }
        return try collected.get()
    }
}
