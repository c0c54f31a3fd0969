import CMosquitto
import Foundation
import Synchronization

extension MQTTConnection {
    /// Validates `messages` and hands the valid ones to libmosquitto under one lock; see
    /// `MQTTClient.publish`. A message that fails its check is left out, and the first such failure is
    /// thrown after the others were handed over: one bad message never costs the rest of a batch.
    func publish(_ messages: [MQTTMessage]) throws(MQTTError) {
        var messages = messages
        var lists = [OpaquePointer?]()
        lists.reserveCapacity(messages.count)
        defer { for var list in lists { mosquitto_property_free_all(&list) } }
        var firstError: MQTTError?
        var bad: [Int] = []
        // By index, through the buffer: a message taken out of the array by value is a copy of its topic,
        // payload and properties (retained and released again), for every message of every batch.
        messages.withUnsafeBufferPointer { messages in
            for index in messages.indices {
                do throws(MQTTError) {
                    lists.append(try prepare(messages[index]))
                } catch {
                    if firstError == nil { firstError = error }
                    bad.append(index)
                }
            }
        }
        for index in bad.reversed() { messages.remove(at: index) }
        try state.withLock { state throws(MQTTError) in
            if let error = state.notRunningError { throw error }
            try messages.withUnsafeBufferPointer { buffer throws(MQTTError) in
                for index in buffer.indices {
                    if mustWait(buffer[index], in: state) {
                        state.backlog.append(contentsOf: messages[index...])
                        return
                    }
                    if let error = submit(buffer[index], properties: lists[index], completion: nil, in: &state) {
                        throw error
                    }
                }
            }
        }
        writeQueued()
        if let firstError { throw firstError }
    }

    /// Publishes one message and waits for its acknowledgement; see `MQTTClient.publishAndWait`.
    func publishAndWait(_ message: MQTTMessage) async throws(MQTTError) {
        var list = try prepare(message)
        defer { mosquitto_property_free_all(&list) }
        let result = await withCheckedContinuation { (completion: Completion) in
            let error = state.withLock { state -> MQTTError? in
                state.notRunningError ?? submit(message, properties: list, completion: completion, in: &state)
            }
            if let error { completion.resume(returning: .failure(error)) }
            writeQueued()
        }
        try result.get()
    }

    /// Checks a message and builds its MQTT 5 property list (nil when there is none).
    private func prepare(_ message: MQTTMessage) throws(MQTTError) -> OpaquePointer? {
        try MQTTTopic.validateName(message.topic)
        try MosquittoProperties.checkPayloadSize(message.payload.count)
        return try MosquittoProperties.makeList(message.properties, protocolVersion: configuration.protocolVersion)
    }

    /// Hands a message to libmosquitto, or keeps it for later. Runs with `state` locked, so the waiter for
    /// the message id is registered before the loop thread can report the acknowledgement.
    ///
    /// While disconnected, QoS 0 messages are dropped (the gateway republishes its state after every
    /// reconnect) and QoS 1/2 messages wait in the offline queue. A QoS 1/2 message that libmosquitto took
    /// just as the connection broke stays in its session and is sent again after the reconnect. While
    /// connected, a message waits in the backlog when the send window is full or others wait already.
    /// - Returns: nil when the message was taken (and `completion`, if any, registered); otherwise the
    ///   error, with `completion` left to the caller.
    func submit(
        _ message: MQTTMessage, properties: OpaquePointer?, completion: Completion?,
        in state: inout ConnectionState
    ) -> MQTTError? {
        guard state.ready else {
            guard message.qos != .atMostOnce, configuration.outbound.maxQueuedMessages > 0 else {
                state.droppedWhileOffline += 1
                return completion == nil ? nil : .notConnected
            }
            enqueueOffline(QueuedPublish(message: message, completion: completion), in: &state)
            return nil
        }
        if mustWait(message, in: state) {
            state.backlog.append(QueuedPublish(message: message, completion: completion))
            return nil
        }
        return send(message, properties: properties, completion: completion, cost: Self.windowCost(message), in: &state)
    }

    /// Whether a message published now, while connected, waits in the backlog: the send window is full
    /// or others wait already.
    private func mustWait(_ message: MQTTMessage, in state: ConnectionState) -> Bool {
        state.ready && configuration.outbound.sendWindowBytes > 0
            && (!state.backlog.isEmpty || !windowHasRoom(for: Self.windowCost(message), in: state))
    }

    /// What a message counts against the send window: the bytes libmosquitto copies, and about what its
    /// bookkeeping for one message takes (the message record, the packet, the topic copy; measured with
    /// heaptrack), which outweighs the payload of most state messages.
    private static func windowCost(_ message: MQTTMessage) -> Int {
        message.payload.count + message.topic.utf8.count + 256
    }

    /// Whether a message of `cost` bytes may go now; one that alone exceeds the window goes when it is empty.
    private func windowHasRoom(for cost: Int, in state: ConnectionState) -> Bool {
        state.window.bytes == 0 || state.window.bytes + cost <= configuration.outbound.sendWindowBytes
    }

    /// `mosquitto_publish_v5`, counting the message against the send window until libmosquitto reports it
    /// written (QoS 0) or acknowledged (QoS 1/2).
    private func send(
        _ message: MQTTMessage, properties: OpaquePointer?, completion: Completion?, cost: Int,
        in state: inout ConnectionState
    ) -> MQTTError? {
        var mid: Int32 = 0
        // withCString lends a native string's own bytes; passing the String itself makes a C copy of it.
        let rc = message.topic.withCString { topic in
            message.payload.withUnsafeBytes { payload in
                mosquitto_publish_v5(
                    pointer, &mid, topic, Int32(payload.count), payload.baseAddress, message.qos.rawValue,
                    message.retain, properties)
            }
        }
        let savedErrno = errno
        if rc == MosquittoError.success || (rc == MosquittoError.noConnection && message.qos != .atMostOnce) {
            unwrittenPublishes.add(1, ordering: .relaxed)
            if let completion { state.waiters.publish[mid] = PendingPublish(qos: message.qos, completion: completion) }
            if configuration.outbound.sendWindowBytes > 0 {
                state.window.bytes += cost
                state.window.shares[mid] = cost
            }
            return nil
        }
        if rc == MosquittoError.noConnection {
            state.droppedWhileOffline += 1
            return completion == nil ? nil : .notConnected
        }
        return MosquittoError.operationError(rc, savedErrno: savedErrno)
    }

    private func enqueueOffline(_ queued: QueuedPublish, in state: inout ConnectionState) {
        let limit = configuration.outbound.maxQueuedMessages
        if state.offlineQueue.count >= limit {
            // Drop a tenth at once so a long outage does not shift the whole queue for every message.
            let dropped = max(1, limit / 10)
            for old in state.offlineQueue.prefix(dropped) { old.completion?.resume(returning: .failure(.notConnected)) }
            state.offlineQueue.removeFirst(min(dropped, state.offlineQueue.count))
            state.droppedWhileOffline += dropped
        }
        state.offlineQueue.append(queued)
    }

    /// Sends the messages kept while disconnected, in order; called by the loop thread when ready. What
    /// the new connection's send window cannot take yet goes to the backlog.
    func flushOfflineQueue(_ state: inout ConnectionState) {
        // Messages libmosquitto held when the connection broke are sent again or were dropped by it.
        state.window.bytes = 0
        state.window.shares = [:]
        let queue = state.offlineQueue
        state.offlineQueue = []
        for queued in queue {
            sendQueued(queued, in: &state) { list, state in
                submit(queued.message, properties: list, completion: queued.completion, in: &state)
            }
        }
    }

    /// Sends backlog messages, oldest first, while the send window has room.
    private func drainBacklog(_ state: inout ConnectionState) {
        while state.ready, let next = state.backlog.first {
            let cost = Self.windowCost(next.message)
            guard windowHasRoom(for: cost, in: state) else { return }
            state.backlog.removeFirst()
            sendQueued(next, in: &state) { list, state in
                send(next.message, properties: list, completion: next.completion, cost: cost, in: &state)
            }
        }
    }

    /// Builds a kept message's property list again and sends it with `body`; a failure goes to its waiter.
    private func sendQueued(
        _ queued: QueuedPublish, in state: inout ConnectionState,
        _ body: (OpaquePointer?, inout ConnectionState) -> MQTTError?
    ) {
        var list: OpaquePointer?
        do throws(MQTTError) {
            list = try MosquittoProperties.makeList(
                queued.message.properties, protocolVersion: configuration.protocolVersion)
        } catch {
            queued.completion?.resume(returning: .failure(error))
            return
        }
        if let error = body(list, &state) {
            queued.completion?.resume(returning: .failure(error))
            log(.warning, "could not send a queued message to \(queued.message.topic): \(error)")
        }
        mosquitto_property_free_all(&list)
    }

    /// The connection broke: backlog messages of QoS 1/2 go to the front of the offline queue (they are
    /// older than anything published from now on); QoS 0 ones are dropped like any QoS 0 message while
    /// disconnected.
    func moveBacklogOffline(_ state: inout ConnectionState) {
        var kept: [QueuedPublish] = []
        for queued in state.backlog.removeAll() {
            if queued.message.qos == .atMostOnce {
                state.droppedWhileOffline += 1
                queued.completion?.resume(returning: .failure(.notConnected))
            } else {
                kept.append(queued)
            }
        }
        state.offlineQueue = kept + state.offlineQueue
    }

    /// libmosquitto reports a QoS 0 message written, or a QoS 1/2 message acknowledged (PUBACK/PUBCOMP).
    func didCompletePublish(mid: Int32, reasonCode: Int32) {
        state.withLock { state in
            if let share = state.window.shares.removeValue(forKey: mid) {
                state.window.bytes -= share
                // The backlog refills the window once half of it is free, not message by message: the
                // refill is then written in one go, in a few TCP segments, instead of a packet, a
                // segment and a loop turn for each acknowledgement (hap2mqtt-bench fanout).
                if state.window.bytes <= configuration.outbound.sendWindowBytes / 2 { drainBacklog(&state) }
            }
            guard let pending = state.waiters.publish.removeValue(forKey: mid) else { return }
            if reasonCode >= 0x80 {
                pending.completion.resume(
                    returning: .failure(.protocolError(code: reasonCode, reason: MosquittoError.reasonText(reasonCode)))
                )
            } else {
                pending.completion.resume(returning: .success(()))
            }
        }
    }
}
