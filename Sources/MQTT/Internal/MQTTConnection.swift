import CMosquitto
import Dispatch
import Foundation
import Logging
import Synchronization
import SystemSupport

/// The engine behind `MQTTClient`: one libmosquitto client, the thread that drives it, and the state that
/// the thread, the libmosquitto callbacks and the callers share.
///
/// The loop thread keeps a strong reference while it runs, so the unretained userdata pointer that the
/// callbacks receive (they run on that thread, or inside `writeQueued()` on a caller's, which holds a
/// reference too) always points at a live object.
final class MQTTConnection: Sendable {
    let handle: MosquittoHandle
    let configuration: MQTTConfiguration
    let endpoint: MQTTEndpoint
    let logger: Logger
    let state = Mutex(ConnectionState())
    /// Cuts the wait between reconnect attempts short when `disconnect()` is called.
    let wake = DispatchSemaphore(value: 0)
    /// Wakes the loop out of `poll(2)` on an established connection (MQTTConnection+DirectIO.swift).
    let wakePipe: WakePipe
    /// Whether the loop drives the established connection by hand; held by whichever thread reads or
    /// writes the socket through libmosquitto then, so that reads and writes (and OpenSSL's state under
    /// TLS) never overlap. Taken before `state`, never inside it.
    let directIO = Mutex(false)
    /// PUBLISH packets handed to libmosquitto since the last write by hand began: more than one is worth
    /// corking the socket for (MQTTConnection+DirectIO.swift).
    let unwrittenPublishes = Atomic(0)
    /// Packets were queued whose publisher found `directIO` taken and left their writing to the thread
    /// holding it, which writes them when it lets go (MQTTConnection+DirectIO.swift).
    let writeWanted = Atomic(false)
    /// The received messages until `MQTTClient.messages` reads them.
    let inbound: HandOffQueue<InboundBuffer>
    /// The wake-up of `MQTTClient.attachReader(_:)`'s consumer, claimed by a message received inside a
    /// read and called by the loop thread once it has let go of `directIO` (MQTTConnection+Loop.swift).
    let pendingWake = Mutex<(@Sendable () -> Void)?>(nil)
    let eventContinuation: AsyncStream<MQTTConnectionEvent>.Continuation

    init(
        configuration: MQTTConfiguration, logger: Logger,
        messages: HandOffQueue<InboundBuffer>, events: AsyncStream<MQTTConnectionEvent>.Continuation
    ) throws(MQTTError) {
        try configuration.validate()
        let endpoint = try MQTTEndpoint(url: configuration.url)
        self.handle = try MosquittoHandle(configuration: configuration, endpoint: endpoint)
        self.wakePipe = try WakePipe()
        self.configuration = configuration
        self.endpoint = endpoint
        self.logger = logger
        self.inbound = messages
        self.eventContinuation = events
        installCallbacks()
    }

    deinit {
        wakePipe.closeBothEnds()
    }

    var pointer: OpaquePointer { handle.pointer }

    /// `host:port` for log lines and errors.
    var brokerName: String { "\(endpoint.usesTLS ? "mqtts" : "mqtt")://\(endpoint.host):\(endpoint.port)" }

    func log(_ level: LogLevel, _ text: @autoclosure () -> String) {
        logger.log(level, text())
    }

    // MARK: Life cycle

    /// Starts the loop thread and waits for the first CONNACK; see `MQTTClient.connect()`.
    func start() async throws(MQTTError) {
        let result = await withCheckedContinuation { (completion: Completion) in
            let launch = state.withLock { state -> Bool in
                switch state.phase {
                case .idle:
                    state.phase = .running
                    state.waiters.connect.append(completion)
                    return true
                case .running where !state.everReady:
                    state.waiters.connect.append(completion)
                case .running:
                    completion.resume(returning: .success(()))
                case .stopping, .closed:
                    completion.resume(returning: .failure(.closed))
                }
                return false
            }
            if launch { launchLoopThread() }
        }
        try result.get()
    }

    /// Sends DISCONNECT, ends the loop thread and finishes the streams; see `MQTTClient.disconnect()`.
    func stop() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            requestStop(done)
        }
    }

    /// Like `stop()`, without waiting: for `MQTTClient.deinit`.
    func stopWithoutWaiting() {
        requestStop(nil)
    }

    private func requestStop(_ done: CheckedContinuation<Void, Never>?) {
        enum Action { case finishNow, signalLoop, none }
        let action = state.withLock { state -> Action in
            switch state.phase {
            case .idle:
                state.phase = .stopping
                if let done { state.waiters.stop.append(done) }
                return .finishNow
            case .running:
                state.phase = .stopping
                if let done { state.waiters.stop.append(done) }
                return .signalLoop
            case .stopping:
                if let done { state.waiters.stop.append(done) }
                return .none
            case .closed:
                done?.resume()
                return .none
            }
        }
        switch action {
        case .finishNow:
            finishStopped()
        case .signalLoop:
            // A clean DISCONNECT (MQTT 5 §3.14): the broker discards the last will.
            mosquitto_disconnect(pointer)
            writeQueued()
            wake.signal()
            wakePipe.signal()
        case .none:
            break
        }
    }

    /// Called once, when the client is finished: fails every waiter, finishes the streams, then lets the
    /// `disconnect()` callers return.
    func finishStopped() {
        let stopWaiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.phase = .closed
            state.ready = false
            for completion in state.waiters.connect { completion.resume(returning: .failure(.closed)) }
            state.waiters.connect = []
            failPendingOperations(&state, with: .notConnected)
            state.hooks = []
            let waiters = state.waiters.stop
            state.waiters.stop = []
            return waiters
        }
        inbound.finish()
        eventContinuation.finish()
        for waiter in stopWaiters { waiter.resume() }
    }

    /// Resumes every publish, subscribe and unsubscribe waiter with `error` and empties the offline queue
    /// and the backlog.
    func failPendingOperations(_ state: inout ConnectionState, with error: MQTTError) {
        for pending in state.waiters.publish.values { pending.completion.resume(returning: .failure(error)) }
        for pending in state.waiters.subscribe.values { pending.completion.resume(returning: .failure(error)) }
        for completion in state.waiters.unsubscribe.values { completion.resume(returning: .failure(error)) }
        for queued in state.offlineQueue { queued.completion?.resume(returning: .failure(error)) }
        for queued in state.backlog.removeAll() { queued.completion?.resume(returning: .failure(error)) }
        state.waiters.publish = [:]
        state.waiters.subscribe = [:]
        state.waiters.unsubscribe = [:]
        state.offlineQueue = []
    }

    // MARK: Hooks and status

    func addConnectHook(_ hook: @escaping ConnectHook) {
        state.withLock { state in
            if state.phase != .closed && state.phase != .stopping { state.hooks.append(hook) }
        }
    }

    var isConnected: Bool { state.withLock { $0.ready } }

    /// Messages waiting for room in the send window, and those waiting for a connection.
    var waitingCounts: (backlog: Int, offline: Int) { state.withLock { ($0.backlog.count, $0.offlineQueue.count) } }
}
