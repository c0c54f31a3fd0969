import CMosquitto
import Foundation
import Synchronization

extension MQTTConnection {
    /// Remembers `filters` and, when connected, subscribes and waits for SUBACK; see `MQTTClient.subscribe`.
    func subscribe(_ filters: [String], qos: MQTTQoS, retainAsPublished: Bool) async throws(MQTTError) {
        let options = SubscriptionOptions(qos: qos, retainAsPublished: retainAsPublished)
        try await filterOperation(filters) { state, completion in
            let previous = filters.map { state.subscriptions[$0] }
            for filter in filters {
                state.subscriptions[filter] = options
                state.unsentUnsubscriptions.remove(filter)
            }
            guard state.ready else { return completion.resume(returning: .success(())) }
            let (rc, mid, savedErrno) = sendSubscribe(filters, options: options)
            if rc == MosquittoError.success {
                state.waiters.subscribe[mid] = PendingSubscribe(filters: filters, completion: completion)
            } else if rc == MosquittoError.noConnection {
                // The connection just broke; the filters are remembered and go out after the reconnect.
                completion.resume(returning: .success(()))
            } else {
                for (filter, old) in zip(filters, previous) { state.subscriptions[filter] = old }
                completion.resume(returning: .failure(MosquittoError.operationError(rc, savedErrno: savedErrno)))
            }
        }
    }

    /// Forgets `filters` and, when connected, unsubscribes and waits for UNSUBACK.
    func unsubscribe(_ filters: [String]) async throws(MQTTError) {
        // A persistent session keeps its subscriptions on the broker while the client is away: they are
        // unsubscribed after the reconnect.
        let unsent: Set<String> = configuration.sessionExpiry == nil ? [] : Set(filters)
        try await filterOperation(filters) { state, completion in
            for filter in filters { state.subscriptions[filter] = nil }
            guard state.ready else {
                state.unsentUnsubscriptions.formUnion(unsent)
                return completion.resume(returning: .success(()))
            }
            var mid: Int32 = 0
            let rc = withCStrings(filters) {
                mosquitto_unsubscribe_multiple(pointer, &mid, Int32(filters.count), $0, nil)
            }
            let savedErrno = errno
            if rc == MosquittoError.success {
                state.waiters.unsubscribe[mid] = completion
            } else if rc == MosquittoError.noConnection {
                state.unsentUnsubscriptions.formUnion(unsent)
                completion.resume(returning: .success(()))
            } else {
                completion.resume(returning: .failure(MosquittoError.operationError(rc, savedErrno: savedErrno)))
            }
        }
    }

    /// Checks `filters`, then runs `body` with the state locked and a completion that `body` resumes now
    /// or registers for the broker's acknowledgement; fails with `.closed` after `disconnect()`.
    private func filterOperation(
        _ filters: [String], _ body: (inout ConnectionState, Completion) -> Void
    ) async throws(MQTTError) {
        guard !filters.isEmpty else { return }
        for filter in filters { try MQTTTopic.validateFilter(filter) }
        let result = await withCheckedContinuation { (completion: Completion) in
            state.withLock { state in
                if state.phase == .stopping || state.phase == .closed {
                    return completion.resume(returning: .failure(.closed))
                }
                body(&state, completion)
            }
            writeQueued()
        }
        try result.get()
    }

    /// Sends every remembered filter again, one SUBSCRIBE per QoS; called by the loop thread when a
    /// connection is accepted, before anything else is published on it.
    func resubscribe(_ state: inout ConnectionState) {
        if !state.unsentUnsubscriptions.isEmpty {
            let filters = state.unsentUnsubscriptions.sorted()
            state.unsentUnsubscriptions = []
            let rc = withCStrings(filters) {
                mosquitto_unsubscribe_multiple(pointer, nil, Int32(filters.count), $0, nil)
            }
            if rc != MosquittoError.success {
                log(
                    .error,
                    "could not unsubscribe from \(filters.joined(separator: ", ")) after the reconnect: \(MosquittoError.text(rc))"
                )
            }
        }
        let byOptions = Dictionary(grouping: state.subscriptions.keys.sorted()) {
            state.subscriptions[$0] ?? SubscriptionOptions(qos: .atMostOnce, retainAsPublished: false)
        }
        for (options, filters) in byOptions.sorted(by: { $0.key < $1.key }) {
            let (rc, mid, savedErrno) = sendSubscribe(filters, options: options)
            if rc == MosquittoError.success {
                state.resubscriptions[mid] = filters
                log(.debug, "subscribed again to \(filters.joined(separator: ", ")) (QoS \(options.qos.rawValue))")
            } else {
                log(
                    .error,
                    "could not subscribe again to \(filters.joined(separator: ", ")): \(MosquittoError.text(rc, savedErrno: savedErrno))"
                )
            }
        }
    }

    /// The broker answered a SUBSCRIBE: one granted QoS or failure reason code (0x80 and above) per filter.
    func didReceiveSuback(mid: Int32, granted: [Int32]) {
        state.withLock { state in
            if let filters = state.resubscriptions.removeValue(forKey: mid) {
                for (filter, code) in zip(filters, granted) where code >= 0x80 {
                    state.subscriptions[filter] = nil
                    log(.error, "the broker refused the subscription to \(filter): \(MosquittoError.reasonText(code))")
                }
                return
            }
            guard let pending = state.waiters.subscribe.removeValue(forKey: mid) else { return }
            let refused = zip(pending.filters, granted).filter { $0.1 >= 0x80 }
            guard let code = refused.first?.1 else { return pending.completion.resume(returning: .success(())) }
            for (filter, _) in refused { state.subscriptions[filter] = nil }
            let names = refused.map(\.0).joined(separator: ", ")
            pending.completion.resume(
                returning: .failure(
                    .protocolError(
                        code: code,
                        reason: "the broker refused the subscription to \(names): \(MosquittoError.reasonText(code))")))
        }
    }

    func didReceiveUnsuback(mid: Int32) {
        state.withLock { state in
            state.waiters.unsubscribe.removeValue(forKey: mid)?.resume(returning: .success(()))
        }
    }

    private func sendSubscribe(_ filters: [String], options: SubscriptionOptions) -> (
        rc: Int32, mid: Int32, errno: Int32
    ) {
        var mid: Int32 = 0
        // The option bits share the QoS byte in SUBSCRIBE; in MQTT 3.1.1 they are reserved and must be 0.
        let flags: Int32 =
            options.retainAsPublished && configuration.protocolVersion == .v5
            ? Int32(MQTT_SUB_OPT_RETAIN_AS_PUBLISHED.rawValue) : 0
        let rc = withCStrings(filters) {
            mosquitto_subscribe_multiple(pointer, &mid, Int32(filters.count), $0, options.qos.rawValue, flags, nil)
        }
        return (rc, mid, errno)
    }

    /// Calls `body` with a C array of C strings that lives for the call.
    private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>?) -> R) -> R
    {
        let copies = strings.map { strdup($0) }
        defer { for copy in copies { free(copy) } }
        return copies.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}
