import CMosquitto
import Synchronization

/// A plain libmosquitto client with libmosquitto's own loop thread (`mosquitto_loop_start`): the
/// measuring subscriber, the baseline publisher and the baseline echo client. It speaks MQTT 5 with no
/// in-flight limit, as the gateway's `MQTTClient` does, and does nothing per message but what the
/// benchmark needs: a time stamp, the expectation's bookkeeping, and for an echo client its reply (with the
/// messages `Echo.before` gives).
///
/// `@unchecked Sendable` because it owns a C handle: the pointer never changes, libmosquitto guards its
/// own state (its loop thread and callers may use it at once), everything else sits in a `Mutex`, and
/// the handle is destroyed once, in `deinit`, after `stop()` joined the loop thread.
final class BareClient: @unchecked Sendable {
    struct Echo: Sendable {
        /// Appended to the request's topic to make the reply's topic.
        var replySuffix: String
        var qos: Int32
        /// Sent before the reply, as the gateway sends a confirmed write's state and accessory JSON before
        /// its result: for each request topic, its state topic (the request topic without `/set`, with the
        /// request's payload) and its accessory's JSON (topic and payload), both retained at `qos`. A
        /// request topic not in it gets the reply alone.
        var before: [String: StateAndAccessory] = [:]
    }

    /// The two retained messages that `Echo.before` sends for one request topic.
    struct StateAndAccessory: Sendable {
        var stateTopic: String
        var accessoryTopic: String
        var accessoryJSON: [UInt8]
    }

    private struct Waiter {
        var id: Int
        var expectation: any Expectation
        var continuation: CheckedContinuation<(any Expectation)?, Never>
    }

    private struct State {
        var connect: CheckedContinuation<Int32, Never>?
        var subscribes: [Int32: CheckedContinuation<Void, Never>] = [:]
        var waiter: Waiter?
        var nextWaiter = 0
        var received = 0
        var timedOut = ""
    }

    let name: String
    private let pointer: OpaquePointer
    private let state = Mutex(State())
    private let echo: Echo?

    /// Creates the client; nothing touches the network until `connect(port:)`.
    init(name: String, echo: Echo? = nil) throws {
        _ = mosquittoLibrary
        guard let pointer = mosquitto_new(name, true, nil) else {
            throw BenchmarkError.mqtt("mosquitto_new failed for \(name)")
        }
        self.name = name
        self.pointer = pointer
        self.echo = echo
        mosquitto_int_option(pointer, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5)
        mosquitto_max_inflight_messages_set(pointer, 0)
        // Without this, Nagle's algorithm holds a small packet until the broker acknowledges the last one,
        // which a delayed ACK postpones by up to 40 ms: request/reply timings would measure TCP, not MQTT.
        mosquitto_int_option(pointer, MOSQ_OPT_TCP_NODELAY, 1)
        mosquitto_user_data_set(pointer, Unmanaged.passUnretained(self).toOpaque())
        mosquitto_connect_callback_set(pointer) { _, userdata, rc in
            BareClient.from(userdata)?.didConnect(rc)
        }
        mosquitto_subscribe_callback_set(pointer) { _, userdata, mid, _, _ in
            BareClient.from(userdata)?.didSubscribe(mid)
        }
        mosquitto_message_callback_set(pointer) { mosq, userdata, message in
            let time = Monotonic.now()
            guard let message, let client = BareClient.from(userdata) else { return }
            client.didReceive(message.pointee, at: time, mosq: mosq)
        }
    }

    deinit {
        mosquitto_destroy(pointer)
    }

    private static func from(_ userdata: UnsafeMutableRawPointer?) -> BareClient? {
        userdata.map { Unmanaged<BareClient>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Connects to the broker on 127.0.0.1 and starts the loop thread; returns after CONNACK.
    func connect(port: Int) async throws {
        let rc = mosquitto_connect(pointer, "127.0.0.1", Int32(port), 30)
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw BenchmarkError.mqtt("\(name): connect failed (\(rc))") }
        let code = await withCheckedContinuation { continuation in
            state.withLock { $0.connect = continuation }
            mosquitto_loop_start(pointer)
        }
        guard code == 0 else { throw BenchmarkError.mqtt("\(name): the broker refused the connection (\(code))") }
    }

    /// A client connected to the broker on `port` of 127.0.0.1.
    static func connected(_ name: String, port: Int, echo: Echo? = nil) async throws -> BareClient {
        let client = try BareClient(name: name, echo: echo)
        try await client.connect(port: port)
        return client
    }

    /// Subscribes and returns after SUBACK.
    func subscribe(_ filter: String, qos: Int32 = 1) async throws {
        await withCheckedContinuation { continuation in
            state.withLock { state in
                var mid: Int32 = 0
                let rc = mosquitto_subscribe(pointer, &mid, filter, qos)
                if rc == MOSQ_ERR_SUCCESS.rawValue {
                    state.subscribes[mid] = continuation
                } else {
                    continuation.resume()
                }
            }
        }
    }

    func unsubscribe(_ filter: String) {
        mosquitto_unsubscribe(pointer, nil, filter)
    }

    /// Queues one PUBLISH; libmosquitto's loop thread writes it.
    @discardableResult
    func publish(_ topic: String, _ payload: [UInt8], qos: Int32, retain: Bool) -> Int32 {
        payload.withUnsafeBytes { bytes in
            mosquitto_publish(pointer, nil, topic, Int32(bytes.count), bytes.baseAddress, qos, retain)
        }
    }

    /// Installs `expectation` and returns it fulfilled, or nil after `timeout` (then its state is lost).
    /// Messages that arrived before the call are not shown to it. Install it before causing the
    /// messages, with `start`, which runs once the expectation is in place.
    func expect<E: Expectation>(_ expectation: E, timeout: Duration, start: () -> Void = {}) async -> E? {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let fulfilled = await withCheckedContinuation {
            (continuation: CheckedContinuation<(any Expectation)?, Never>) in
            state.withLock { $0.waiter = Waiter(id: id, expectation: expectation, continuation: continuation) }
            start()
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                self?.expire(id)
            }
        }
        return fulfilled as? E
    }

    /// How far the last expectation that timed out got, for the error message.
    var timedOutProgress: String { state.withLock { "\($0.timedOut); \($0.received) messages in all" } }

    /// Disconnects and joins the loop thread.
    func stop() {
        mosquitto_disconnect(pointer)
        mosquitto_loop_stop(pointer, false)
    }

    private func expire(_ id: Int) {
        state.withLock { state in
            guard let waiter = state.waiter, waiter.id == id else { return }
            state.waiter = nil
            state.timedOut = waiter.expectation.progress
            waiter.continuation.resume(returning: nil)
        }
    }

    private func didConnect(_ rc: Int32) {
        state.withLock { state in
            state.connect?.resume(returning: rc)
            state.connect = nil
        }
    }

    private func didSubscribe(_ mid: Int32) {
        state.withLock { $0.subscribes.removeValue(forKey: mid)?.resume() }
    }

    private func didReceive(_ message: mosquitto_message, at time: UInt64, mosq: OpaquePointer?) {
        guard let topicPointer = message.topic else { return }
        let payload = UnsafeRawBufferPointer(start: message.payload, count: Int(message.payloadlen))
        if let echo {
            let requestTopic = String(cString: topicPointer)
            if let messages = echo.before[requestTopic] {
                _ = mosquitto_publish(
                    mosq, nil, messages.stateTopic, Int32(payload.count), payload.baseAddress, echo.qos, true)
                messages.accessoryJSON.withUnsafeBytes { bytes in
                    _ = mosquitto_publish(
                        mosq, nil, messages.accessoryTopic, Int32(bytes.count), bytes.baseAddress, echo.qos, true)
                }
            }
            // The reply mirrors the gateway's `{"status":"ok","value":…}` result.
            let reply = Array(#"{"status":"ok","value":"#.utf8) + Array(payload) + [UInt8(ascii: "}")]
            let replyTopic = requestTopic + echo.replySuffix
            reply.withUnsafeBytes { bytes in
                _ = mosquitto_publish(mosq, nil, replyTopic, Int32(bytes.count), bytes.baseAddress, echo.qos, false)
            }
            return
        }
        let topic = String(cString: topicPointer)
        state.withLock { state in
            state.received += 1
            // Mutated in place: a copy would copy the expectation's record of every message each time.
            guard state.waiter?.expectation.observe(topic: topic, payload: payload, at: time) == true,
                let waiter = state.waiter
            else { return }
            state.waiter = nil
            waiter.continuation.resume(returning: waiter.expectation)
        }
    }
}

/// `mosquitto_lib_init` once per process (libmosquitto 2.0 counts the calls, so the MQTT module's own
/// call does not conflict).
private let mosquittoLibrary: Int32 = mosquitto_lib_init()
