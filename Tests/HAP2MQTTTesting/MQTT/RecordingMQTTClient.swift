public import MQTT
import Synchronization
import SystemSupport

/// An `MQTTClientProtocol` without a broker, for tests of the Gateway. It records every message published
/// (and the batches they were published in), keeps what a broker would retain, and hands the consumer of
/// `messages` the messages a test delivers, as a broker forwards them to a subscriber.
///
/// Checks are exact, without waiting for time to pass: `drained()` returns once the consumer has taken
/// every delivered message and asks for the next, that is once it has handled them all, so what they
/// caused synchronously is in the record.
///
/// ```swift
/// let mqtt = RecordingMQTTClient()
/// … a Gateway runs with it …
/// try mqtt.deliver(MQTTMessage(topic: "hap2mqtt/lamp/lightbulb/on/set", string: "true", qos: .atLeastOnce))
/// await mqtt.drained()
/// #expect(mqtt.messages(on: "hap2mqtt/lamp/lightbulb/on/set/result").count == 1)
/// ```
public final class RecordingMQTTClient: MQTTClientProtocol {
    private struct State {
        var connected = true
        var published: [MQTTMessage] = []
        var batches: [[MQTTMessage]] = []
        var retained: [String: MQTTMessage] = [:]
        var subscriptions: [String: (qos: MQTTQoS, retainAsPublished: Bool)] = [:]
        var hooks: [@Sendable (Bool) async -> Void] = []
        var publishFailure: MQTTError?
        /// Called with every batch, inside `publish`, as a real client's own work (and log lines) happens.
        var publishHook: (@Sendable ([MQTTMessage]) -> Void)?
        /// Delivered and not taken yet.
        var queue: [MQTTMessage] = []
        /// The consumer waiting for a message (it handled everything before).
        var consumer: CheckedContinuation<MQTTMessage?, Never>?
        /// The consumer of `attachReader(_:)`.
        var reader = AttachedReader()
        var finished = false
        var drainWaiters: [CheckedContinuation<Void, Never>] = []
        /// Counts publish calls, so that a waiter knows whether anything came since it looked.
        var publications = 0
        /// Tests waiting for the next publish call, by number.
        var publishWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
        /// Waiters that timed out before they registered.
        var expiredWaiters: Set<Int> = []

        var isDrained: Bool { queue.isEmpty && (consumer != nil || reader.isIdle || finished) }

        /// Claims the attached reader's wake-up when it is idle and a message waits.
        mutating func claimReader() -> (@Sendable () -> Void)? {
            reader.claim(when: !queue.isEmpty)
        }
    }

    private let state = Mutex(State())
    /// What a broker would forward: the messages of `deliver(_:)`, in order. Finishes with `finish()` or
    /// when its consumer's task is cancelled.
    public let messages: AsyncStream<MQTTMessage>

    /// A connected client with nothing recorded.
    public init() {
        let box = ConsumerBox()
        messages = AsyncStream(unfolding: { await box.client?.next() }, onCancel: { box.client?.finish() })
        box.client = self
    }

    deinit {
        finish()
    }

    // MARK: MQTTClientProtocol

    public var isConnected: Bool { state.withLock { $0.connected } }

    /// Makes `wake` the consumer, called on the delivering thread as `MQTTClient` calls it on
    /// libmosquitto's.
    public func attachReader(_ wake: @escaping @Sendable () -> Void) {
        let (now, waiters) = state.withLock { state -> ((@Sendable () -> Void)?, [CheckedContinuation<Void, Never>]) in
            state.reader.attach(wake)
            let now = state.claimReader()
            guard state.isDrained else { return (now, []) }
            defer { state.drainWaiters = [] }
            return (now, state.drainWaiters)
        }
        for waiter in waiters { waiter.resume() }
        now?()
    }

    public func detachReader() {
        state.withLock { $0.reader.detach() }
    }

    /// The next delivered message; nil when none waits, which counts as the consumer having handled
    /// everything before (`drained()`).
    public func takeMessage() -> MQTTMessage? {
        let (message, waiters) = state.withLock { state -> (MQTTMessage?, [CheckedContinuation<Void, Never>]) in
            if !state.queue.isEmpty { return (state.queue.removeFirst(), []) }
            state.reader.wentIdle()
            defer { state.drainWaiters = [] }
            return (nil, state.drainWaiters)
        }
        for waiter in waiters { waiter.resume() }
        return message
    }

    /// Records the batch, or throws what `failPublishing(with:)` set.
    public func publish(_ messages: [MQTTMessage]) throws(MQTTError) {
        if let hook = state.withLock({ $0.publishHook }) { hook(messages) }
        if let failure = state.withLock({ $0.publishFailure }) { throw failure }
        let waiters = state.withLock { state in
            state.batches.append(messages)
            state.published += messages
            for message in messages where message.retain {
                state.retained[message.topic] = message.payload.isEmpty ? nil : message
            }
            state.publications += 1
            defer { state.publishWaiters = [:] }
            return state.publishWaiters.values
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Records the message as a batch of its own.
    public func publishAndWait(_ message: MQTTMessage) async throws(MQTTError) {
        try publish([message])
    }

    /// Records the filters.
    public func subscribe(_ filters: [String], qos: MQTTQoS, retainAsPublished: Bool) async throws(MQTTError) {
        state.withLock { state in
            for filter in filters { state.subscriptions[filter] = (qos, retainAsPublished) }
        }
    }

    /// The retained messages recorded on topics matching `filters`, as a broker would send them to a new
    /// subscription, with the payloads `keep` refuses dropped as `MQTTClient`'s scan drops them; nothing
    /// is published on `endMarker`.
    public func retainedMessages(
        matching filters: [String], endMarker: String, timeout: Duration,
        keepingPayloadOf keep: @escaping @Sendable (_ topic: String) -> Bool
    ) async throws(MQTTError) -> [MQTTMessage] {
        state.withLock { state in
            state.retained.keys.sorted().compactMap { topic in
                guard filters.contains(where: { MQTTTopic.matches(filter: $0, topic: topic) }),
                    var message = state.retained[topic]
                else { return nil }
                message.retain = true
                if !keep(topic) {
                    message.droppedPayloadSize = message.payload.count
                    message.payload = []
                }
                return message
            }
        }
    }

    public func onConnect(_ hook: @escaping @Sendable (Bool) async -> Void) {
        state.withLock { $0.hooks.append(hook) }
    }

    // MARK: Driving it

    /// Hands `message` to the consumer of `messages`, as the broker forwards a message to a subscriber.
    /// - Throws: `TestSupportError.notReady` when no filter subscribed so far matches the topic: a broker
    ///   would not forward it.
    public func deliver(_ message: MQTTMessage) throws {
        let (consumer, wake) = try state.withLock {
            state throws(TestSupportError) -> (CheckedContinuation<MQTTMessage?, Never>?, (@Sendable () -> Void)?) in
            guard state.subscriptions.keys.contains(where: { MQTTTopic.matches(filter: $0, topic: message.topic) })
            else {
                throw .notReady(
                    "no subscription matches \(message.topic); subscribed: \(state.subscriptions.keys.sorted())")
            }
            guard let consumer = state.consumer else {
                state.queue.append(message)
                return (nil, state.claimReader())
            }
            state.consumer = nil
            return (consumer, nil)
        }
        consumer?.resume(returning: message)
        wake?()
    }

    /// Delivers a UTF-8 payload at QoS 1 (see `deliver(_:)`).
    public func deliver(
        _ topic: String, _ payload: String, retain: Bool = false, properties: MQTTProperties = MQTTProperties()
    ) throws {
        try deliver(
            MQTTMessage(topic: topic, string: payload, qos: .atLeastOnce, retain: retain, properties: properties))
    }

    /// Returns when the consumer has taken every delivered message and waits for the next (or `messages`
    /// has finished): everything the messages caused without waiting is recorded.
    public func drained() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                if state.isDrained { return true }
                state.drainWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// A broker connection lost and made again: the client is not connected while `whileDisconnected`
    /// runs, then the `onConnect` hooks run with `reconnect` true, as `MQTTClient` runs them.
    public func reconnect(whileDisconnected: () async -> Void = {}) async {
        state.withLock { $0.connected = false }
        await whileDisconnected()
        let hooks = state.withLock { state in
            state.connected = true
            return state.hooks
        }
        for hook in hooks { await hook(true) }
    }

    /// Sets whether the client says it is connected.
    public func setConnected(_ connected: Bool) {
        state.withLock { $0.connected = connected }
    }

    /// Calls `hook` with every later batch, inside `publish` on the publisher's task, as a real client's
    /// log lines about a publish are written (nil: none).
    public func onPublish(_ hook: (@Sendable ([MQTTMessage]) -> Void)?) {
        state.withLock { $0.publishHook = hook }
    }

    /// Makes every later publish throw `error` (nil: publish again).
    public func failPublishing(with error: MQTTError?) {
        state.withLock { $0.publishFailure = error }
    }

    /// Forgets the retained messages, as a broker without persistence does when it restarts.
    public func forgetRetained() {
        state.withLock { $0.retained = [:] }
    }

    /// Ends `messages`, as `MQTTClient.disconnect()` does.
    public func finish() {
        let (consumer, waiters) = state.withLock { state in
            state.finished = true
            state.queue = []
            defer {
                state.consumer = nil
                state.drainWaiters = []
            }
            return (state.consumer, state.drainWaiters)
        }
        consumer?.resume(returning: nil)
        for waiter in waiters { waiter.resume() }
    }

    /// The consumer asks for the next message: everything before it has been handled.
    private func next() async -> MQTTMessage? {
        await withCheckedContinuation { (continuation: CheckedContinuation<MQTTMessage?, Never>) in
            let (message, waiters, finished) = state.withLock {
                state -> (MQTTMessage?, [CheckedContinuation<Void, Never>], Bool) in
                if !state.queue.isEmpty { return (state.queue.removeFirst(), [], false) }
                if state.finished { return (nil, [], true) }
                state.consumer = continuation
                defer { state.drainWaiters = [] }
                return (nil, state.drainWaiters, false)
            }
            for waiter in waiters { waiter.resume() }
            if message != nil || finished { continuation.resume(returning: message) }
        }
    }

    // MARK: The record

    /// Every message published so far (since the last `clear()`), in order.
    public var published: [MQTTMessage] { state.withLock { $0.published } }

    /// Every `publish` call so far (since the last `clear()`), each with its messages.
    public var batches: [[MQTTMessage]] { state.withLock { $0.batches } }

    /// The messages published on topics matching `filter`, in order.
    public func messages(on filter: String) -> [MQTTMessage] {
        published.filter { MQTTTopic.matches(filter: filter, topic: $0.topic) }
    }

    /// The payloads published on topics matching `filter`, as text (`N bytes` when not UTF-8), in order.
    public func payloads(on filter: String) -> [String] {
        messages(on: filter).map { $0.payloadString ?? "\($0.payload.count) bytes" }
    }

    /// Forgets what was published so far (the retained messages stay).
    public func clear() {
        state.withLock { state in
            state.published = []
            state.batches = []
        }
    }

    /// The retained message a broker would hold for `topic`, if any.
    public func retained(_ topic: String) -> MQTTMessage? { state.withLock { $0.retained[topic] } }

    /// The retained messages on topics matching `filter`: topic → payload text.
    public func retained(under filter: String) -> [String: String] {
        state.withLock { state in
            var out: [String: String] = [:]
            for (topic, message) in state.retained where MQTTTopic.matches(filter: filter, topic: topic) {
                out[topic] = message.payloadString ?? "\(message.payload.count) bytes"
            }
            return out
        }
    }

    /// The filters subscribed so far, with their QoS and Retain As Published.
    public var subscriptions: [String: (qos: MQTTQoS, retainAsPublished: Bool)] { state.withLock { $0.subscriptions } }

    /// Waits until a message on a topic matching `filter` and satisfying `predicate` was published (since
    /// the last `clear()`, after the first `mark` messages of `published`), and returns the first.
    /// - Throws: `TestSupportError.timedOut`, saying what was published on that filter.
    @discardableResult
    public func waitFor(
        topic filter: String, after mark: Int = 0, timeout: Duration = .seconds(10),
        where predicate: (MQTTMessage) -> Bool = { _ in true }
    ) async throws -> MQTTMessage {
        let deadline = ContinuousClock.now + timeout
        var scanned = mark
        while true {
            let (messages, publications) = state.withLock { ($0.published, $0.publications) }
            if scanned > messages.count { scanned = min(mark, messages.count) }
            if let found = messages[scanned...].first(where: {
                MQTTTopic.matches(filter: filter, topic: $0.topic) && predicate($0)
            }) {
                return found
            }
            scanned = messages.count
            guard ContinuousClock.now < deadline else {
                throw TestSupportError.timedOut(
                    "no matching message on \(filter) within \(timeout); on that filter: \(payloads(on: filter))")
            }
            await nextPublication(after: publications, until: deadline)
        }
    }

    /// Returns after the next publish call following the `publications`-th, or at `deadline`.
    private func nextPublication(after publications: Int, until deadline: ContinuousClock.Instant) async {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let now = self.state.withLock { state -> Bool in
                        if state.publications != publications || state.expiredWaiters.remove(id) != nil { return true }
                        state.publishWaiters[id] = continuation
                        return false
                    }
                    if now { continuation.resume() }
                }
            }
            group.addTask { try? await Task.sleep(until: deadline, clock: .continuous) }
            await group.next()
            group.cancelAll()
            // The time ran out first: the waiter is resumed here, or told to return when it registers.
            let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
                if let waiter = state.publishWaiters.removeValue(forKey: id) { return waiter }
                if state.publications == publications { state.expiredWaiters.insert(id) }
                return nil
            }
            waiting?.resume()
        }
    }
}

/// Lets `messages`' closures reach the client, which owns the stream, without a reference cycle.
private final class ConsumerBox: Sendable {
    private let reference = Mutex<RecordingMQTTClientReference?>(nil)

    var client: RecordingMQTTClient? {
        get { reference.withLock { $0?.client } }
        set { reference.withLock { $0 = RecordingMQTTClientReference(client: newValue) } }
    }
}

private struct RecordingMQTTClientReference {
    weak var client: RecordingMQTTClient?
}
