import Foundation
import Logging
public import MQTT

/// An MQTT client for tests: connects to a broker, collects every message it receives, and waits for
/// the ones a test expects. Built on `MQTTClient`.
///
/// ```swift
/// let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/#"])
/// let state = try await observer.waitFor(topic: "hap2mqtt/bridge/state") { $0.payloadString == #"{"state":"online"}"# }
/// #expect(try await observer.retained("hap2mqtt/lamp/lightbulb/on")?.payloadString == "true")
/// ```
public actor MQTTTestClient {
    /// The underlying client, for what this wrapper does not cover.
    public nonisolated let client: MQTTClient
    /// The configuration it was made with; `retained` connects a second client with it.
    public nonisolated let configuration: MQTTConfiguration
    private var received: [MQTTMessage] = []
    private var waiters: [Waiter] = []
    private var collector: Task<Void, Never>?

    private struct Waiter {
        let id: UUID
        let filter: String
        let predicate: @Sendable (MQTTMessage) -> Bool
        let continuation: CheckedContinuation<MQTTMessage?, Never>
    }

    /// Makes a client without connecting it, so hooks can be added to `client` first; then `connect`.
    /// - Throws: `MQTTError` for a bad configuration.
    public init(configuration: MQTTConfiguration) throws {
        self.configuration = configuration
        self.client = try MQTTClient(configuration: configuration, logger: Logger(label: "mqtt"))
    }

    /// A configuration for `url` with a unique `test-…` client ID (unless given) and quick reconnects
    /// (0.1 s growing to 1 s).
    public static func configuration(url: String, clientID: String? = nil) -> MQTTConfiguration {
        var configuration = MQTTConfiguration(url: url, clientID: clientID ?? "test-\(UUID().uuidString.prefix(8))")
        configuration.reconnectDelay = (.milliseconds(100), .seconds(1))
        return configuration
    }

    /// Connects to `url` and subscribes to `filters` (every topic by default, at QoS 1).
    /// - Parameters:
    ///   - clientID: defaults to a unique `test-…` identifier.
    ///   - configure: changes the configuration before connecting (protocol, credentials, TLS, will).
    /// - Throws: `MQTTError` from connecting or subscribing.
    public static func connect(
        to url: String, clientID: String? = nil, subscribe filters: [String] = ["#"],
        configure: (inout MQTTConfiguration) -> Void = { _ in }
    ) async throws -> MQTTTestClient {
        var configuration = configuration(url: url, clientID: clientID)
        configure(&configuration)
        let testClient = try MQTTTestClient(configuration: configuration)
        try await testClient.connect(subscribe: filters)
        return testClient
    }

    /// Starts collecting messages and connection events, connects and subscribes to `filters`.
    /// - Throws: `MQTTError` from connecting or subscribing.
    public func connect(subscribe filters: [String] = ["#"]) async throws {
        if collector == nil { startCollecting() }
        try await client.connect()
        try await subscribe(filters)
    }

    /// Every retained message `broker` holds on `filters` now, by topic (payloads as text), read with a
    /// fresh client: the retained messages arrive before a marker it publishes to itself.
    /// - Throws: `MQTTError` from connecting, subscribing or publishing; the time-out when the marker
    ///   does not come back within 30 s.
    public static func retainedSnapshot(of broker: MosquittoBroker, _ filters: [String]) async throws -> [String:
        String]
    {
        let probe = try await MQTTTestClient.connect(to: broker, subscribe: [])
        let marker = "hap2mqtt-test/marker/\(UUID().uuidString)"
        try await probe.subscribe(filters + [marker])
        try await probe.publish(marker, "marker")
        _ = try await probe.waitFor(topic: marker)
        var snapshot: [String: String] = [:]
        for message in await probe.allMessages where message.retain && message.topic != marker {
            snapshot[message.topic] = message.payloadString ?? ""
        }
        await probe.disconnect()
        return snapshot
    }

    /// Connects to `broker`'s plain listener; see `connect(to:clientID:subscribe:configure:)`.
    public static func connect(
        to broker: MosquittoBroker, clientID: String? = nil, subscribe filters: [String] = ["#"],
        configure: (inout MQTTConfiguration) -> Void = { _ in }
    ) async throws -> MQTTTestClient {
        try await connect(to: broker.url, clientID: clientID, subscribe: filters, configure: configure)
    }

    private func startCollecting() {
        let messages = client.messages
        let events = client.connectionEvents
        collector = Task { [weak self] in
            await withTaskGroup(of: Void.self) { group in
                group.addTask { for await message in messages { await self?.receive(message) } }
                group.addTask { for await event in events { await self?.record(event) } }
            }
        }
    }

    /// Every connection event so far: `.connected(reconnect:)`, `.disconnected(reason:)`.
    public private(set) var connectionEvents: [MQTTConnectionEvent] = []

    /// Waits until a connection event satisfying `predicate` was seen, and returns the first such.
    /// - Throws: `TestSupportError.timedOut`, listing the events seen.
    @discardableResult
    public func waitForEvent(
        timeout: Duration = .seconds(30), where predicate: @Sendable (MQTTConnectionEvent) -> Bool
    ) async throws -> MQTTConnectionEvent {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let event = connectionEvents.first(where: predicate) { return event }
            guard ContinuousClock.now < deadline else {
                throw TestSupportError.timedOut(
                    "no matching connection event within \(timeout); seen: \(connectionEvents)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    private func record(_ event: MQTTConnectionEvent) {
        connectionEvents.append(event)
    }

    /// Subscribes to more filters and waits for the SUBACK.
    public func subscribe(_ filters: [String], qos: MQTTQoS = .atLeastOnce) async throws {
        try await client.subscribe(filters, qos: qos)
    }

    /// Publishes `payload` as UTF-8 and waits for the broker's acknowledgement.
    public func publish(
        _ topic: String, _ payload: String, qos: MQTTQoS = .atLeastOnce, retain: Bool = false,
        properties: MQTTProperties = MQTTProperties()
    ) async throws {
        try await client.publishAndWait(
            MQTTMessage(topic: topic, string: payload, qos: qos, retain: retain, properties: properties))
    }

    /// Publishes `message` and waits for the broker's acknowledgement.
    public func publish(_ message: MQTTMessage) async throws {
        try await client.publishAndWait(message)
    }

    /// The first message received (since connecting or the last `clear()`) on a topic matching `filter`
    /// and satisfying `predicate`, waiting for it up to `timeout`.
    /// - Throws: `TestSupportError.timedOut`, listing what did arrive.
    public func waitFor(
        topic filter: String, timeout: Duration = .seconds(30),
        where predicate: @escaping @Sendable (MQTTMessage) -> Bool = { _ in true }
    ) async throws -> MQTTMessage {
        if let message = await firstMessage(on: filter, within: timeout, where: predicate) { return message }
        let onFilter = messages(on: filter).map { "\($0.payloadString ?? "\($0.payload.count) bytes")" }
        let topics = Set(received.map(\.topic)).sorted().prefix(30)
        throw TestSupportError.timedOut(
            "no matching message on \(filter) within \(timeout); on that filter: \(onFilter); topics seen: \(Array(topics))"
        )
    }

    /// Like `waitFor`, but returns nil after `timeout`: for checking that something does NOT arrive.
    public func firstMessage(
        on filter: String, within timeout: Duration,
        where predicate: @escaping @Sendable (MQTTMessage) -> Bool = { _ in true }
    ) async -> MQTTMessage? {
        if let message = received.first(where: { MQTTTopic.matches(filter: filter, topic: $0.topic) && predicate($0) })
        {
            return message
        }
        let id = UUID()
        return await withCheckedContinuation { continuation in
            waiters.append(Waiter(id: id, filter: filter, predicate: predicate, continuation: continuation))
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                await self?.expire(id)
            }
        }
    }

    /// Every message received so far on topics matching `filter`, in arrival order.
    public func messages(on filter: String) -> [MQTTMessage] {
        received.filter { MQTTTopic.matches(filter: filter, topic: $0.topic) }
    }

    /// Every message received so far.
    public var allMessages: [MQTTMessage] { received }

    /// Forgets the messages received so far, so later waits only see new ones.
    public func clear() {
        received = []
    }

    /// The retained message the broker holds for `topic` (an exact topic name), or nil when it holds none.
    /// Reads it with a fresh client: it subscribes, then publishes a marker to itself; retained messages
    /// arrive before the marker, so no fixed wait is needed.
    /// - Throws: `MQTTError` or `TestSupportError.timedOut` when the broker does not answer.
    public func retained(_ topic: String, timeout: Duration = .seconds(30)) async throws -> MQTTMessage? {
        let configuration = self.configuration
        let probe = try await MQTTTestClient.connect(
            to: configuration.url, clientID: "probe-\(UUID().uuidString.prefix(8))", subscribe: []
        ) { probeConfiguration in
            probeConfiguration = configuration
            probeConfiguration.clientID = "probe-\(UUID().uuidString.prefix(8))"
            probeConfiguration.will = nil
        }
        let marker = "hap2mqtt-test/marker/\(UUID().uuidString)"
        do {
            try await probe.subscribe([topic, marker])
            try await probe.publish(marker, "marker")
            _ = try await probe.waitFor(topic: marker, timeout: timeout)
            let message = await probe.messages(on: topic).first { $0.topic == topic && $0.retain }
            await probe.disconnect()
            return message
        } catch {
            await probe.disconnect()
            throw error
        }
    }

    /// Disconnects cleanly (the last will is not published) and stops collecting.
    public func disconnect() async {
        await client.disconnect()
        collector?.cancel()
        for waiter in waiters { waiter.continuation.resume(returning: nil) }
        waiters = []
    }

    private func receive(_ message: MQTTMessage) {
        received.append(message)
        var remaining: [Waiter] = []
        for waiter in waiters {
            if MQTTTopic.matches(filter: waiter.filter, topic: message.topic) && waiter.predicate(message) {
                waiter.continuation.resume(returning: message)
            } else {
                remaining.append(waiter)
            }
        }
        waiters = remaining
    }

    private func expire(_ id: UUID) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(returning: nil)
    }
}
