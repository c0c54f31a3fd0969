import CMosquitto
import Foundation
import Synchronization

extension MQTTConnection {
    /// Validates `messages` and hands them to libmosquitto under one lock; see `MQTTClient.publish`.
    func publish(_ messages: [MQTTMessage]) throws(MQTTError) {
        var lists = [OpaquePointer?]()
        lists.reserveCapacity(messages.count)
        defer { for var list in lists { mosquitto_property_free_all(&list) } }
        for message in messages { lists.append(try prepare(message)) }
        try state.withLock { state throws(MQTTError) in
            if let error = state.notRunningError { throw error }
            for (message, list) in zip(messages, lists) {
                if let error = submit(message, properties: list, completion: nil, in: &state) { throw error }
            }
        }
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
        }
        try result.get()
    }

    /// Checks a message and builds its MQTT 5 property list (nil when there is none).
    private func prepare(_ message: MQTTMessage) throws(MQTTError) -> OpaquePointer? {
        try MQTTTopic.validateName(message.topic)
        try MosquittoProperties.checkPayloadSize(message.payload.count)
        return try MosquittoProperties.makeList(message.properties, protocolVersion: configuration.protocolVersion)
    }

    /// Hands a message to libmosquitto, or keeps it for the next connection. Runs with `state` locked, so
    /// the waiter for the message id is registered before the loop thread can report the acknowledgement.
    ///
    /// While disconnected, QoS 0 messages are dropped (the gateway republishes its state after every
    /// reconnect) and QoS 1/2 messages wait in the offline queue. A QoS 1/2 message that libmosquitto took
    /// just as the connection broke stays in its session and is sent again after the reconnect.
    /// - Returns: nil when the message was taken (and `completion`, if any, registered); otherwise the
    ///   error, with `completion` left to the caller.
    func submit(_ message: MQTTMessage, properties: OpaquePointer?, completion: Completion?,
                in state: inout ConnectionState) -> MQTTError? {
        guard state.ready else {
            guard message.qos != .atMostOnce, configuration.maxQueuedMessages > 0 else {
                state.droppedWhileOffline += 1
                return completion == nil ? nil : .notConnected
            }
            enqueueOffline(QueuedPublish(message: message, completion: completion), in: &state)
            return nil
        }
        var mid: Int32 = 0
        let rc = message.payload.withUnsafeBytes { payload in
            mosquitto_publish_v5(pointer, &mid, message.topic, Int32(payload.count), payload.baseAddress,
                                 message.qos.rawValue, message.retain, properties)
        }
        let savedErrno = errno
        if rc == MosquittoError.success || (rc == MosquittoError.noConnection && message.qos != .atMostOnce) {
            if let completion { state.publishWaiters[mid] = PendingPublish(qos: message.qos, completion: completion) }
            return nil
        }
        if rc == MosquittoError.noConnection {
            state.droppedWhileOffline += 1
            return completion == nil ? nil : .notConnected
        }
        return MosquittoError.operationError(rc, savedErrno: savedErrno)
    }

    private func enqueueOffline(_ queued: QueuedPublish, in state: inout ConnectionState) {
        let limit = configuration.maxQueuedMessages
        if state.offlineQueue.count >= limit {
            // Drop a tenth at once so a long outage does not shift the whole queue for every message.
            let dropped = max(1, limit / 10)
            for old in state.offlineQueue.prefix(dropped) { old.completion?.resume(returning: .failure(.notConnected)) }
            state.offlineQueue.removeFirst(min(dropped, state.offlineQueue.count))
            state.droppedWhileOffline += dropped
        }
        state.offlineQueue.append(queued)
    }

    /// Sends the messages kept while disconnected, in order; called by the loop thread when ready.
    func flushOfflineQueue(_ state: inout ConnectionState) {
        let queue = state.offlineQueue
        state.offlineQueue = []
        for queued in queue {
            var list: OpaquePointer?
            do throws(MQTTError) {
                list = try MosquittoProperties.makeList(queued.message.properties, protocolVersion: configuration.protocolVersion)
            } catch {
                queued.completion?.resume(returning: .failure(error))
                continue
            }
            if let error = submit(queued.message, properties: list, completion: queued.completion, in: &state) {
                queued.completion?.resume(returning: .failure(error))
                log(.warning, "could not send a queued message to \(queued.message.topic): \(error)")
            }
            mosquitto_property_free_all(&list)
        }
    }

    /// libmosquitto reports a QoS 0 message written, or a QoS 1/2 message acknowledged (PUBACK/PUBCOMP).
    func didCompletePublish(mid: Int32, reasonCode: Int32) {
        state.withLock { state in
            guard let pending = state.publishWaiters.removeValue(forKey: mid) else { return }
            if reasonCode >= 0x80 {
                pending.completion.resume(returning: .failure(.protocolError(code: reasonCode, reason: MosquittoError.reasonText(reasonCode))))
            } else {
                pending.completion.resume(returning: .success(()))
            }
        }
    }
}
