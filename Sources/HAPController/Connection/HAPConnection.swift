public import Logging
import SystemSupport

/// One TCP connection to a HAP accessory server (docs/hap-notes.md §0, §3, §4.8).
///
/// It starts in cleartext, for `/pair-setup`, `/pair-verify` and `/identify`. `verify(controller:pairing:)`
/// runs pair-verify M1–M4 and switches the same connection to the encrypted framing (`HAPSessionCipher`),
/// from the next byte in each direction.
///
/// Requests go out one at a time, each in one write with a `Host` header; callers that send while a
/// request is in flight wait their turn in order. Responses are matched to requests by order, while
/// `EVENT/1.0` messages, which the accessory may interleave anywhere (even in the same read as a
/// response), go to `events` and are never taken for a response (HA core#24094).
///
/// A request that gets no answer within its time-out, a frame that fails authentication, bytes that are
/// not HTTP and a dropped TCP connection all close the connection: the request in flight and every queued
/// one fail with that `HAPConnectionError`, `events` finishes, and `waitUntilClosed()` returns it.
///
/// ```swift
/// let connection = try await HAPConnection.connect(host: "192.168.1.20", port: 51826, logger: logger)
/// try await connection.verify(controller: identity, pairing: pairing)
/// let answer = try await connection.send(HAPRequests.accessories())
/// ```
public actor HAPConnection {
    /// The host as given to `connect`.
    public nonisolated let host: String
    /// The accessory server's TCP port.
    public nonisolated let port: UInt16
    /// The time-out of requests sent without one of their own.
    public nonisolated let requestTimeout: Duration
    /// The characteristic values of every `EVENT/1.0` message, in arrival order, one array per message
    /// (newest value per characteristic, `HAPEventValue.parse`). Finishes when the connection closes.
    /// Read by one consumer; if it falls more than `eventBufferLimit` messages behind, the oldest are
    /// dropped.
    public nonisolated let events: AsyncStream<[HAPEventValue]>

    /// The default request time-out.
    public static let defaultRequestTimeout: Duration = .seconds(10)
    /// Event messages held for a slow consumer before the oldest are dropped.
    public static let eventBufferLimit = 4096

    let logger: Logger
    private let tcp: TCPConnection
    private let eventContinuation: AsyncStream<[HAPEventValue]>.Continuation

    /// How bytes from the accessory are read: before pair-verify, between its last response and the
    /// session keys (bytes are held), and encrypted.
    private enum ReadMode {
        case cleartext
        case awaitingKeys(held: [UInt8])
        case encrypted
    }

    /// The request whose response is awaited.
    private struct InFlight {
        let id: UInt64
        let summary: String
        let switchesToEncryption: Bool
        var outcome: Result<HTTPMessage, HAPConnectionError>?
        var continuation: CheckedContinuation<Result<HTTPMessage, HAPConnectionError>, Never>?
        let limit: Duration
        let deadline: ContinuousClock.Instant
    }

    private var readMode = ReadMode.cleartext
    private var cipher: HAPSessionCipher?
    private var verifyStarted = false
    private var parser = HTTPResponseParser()
    private var inFlight: InFlight?
    private var nextRequestID: UInt64 = 0
    private var busy = false
    private var turnQueue: [CheckedContinuation<Result<Void, HAPConnectionError>, Never>] = []
    private var reason: HAPConnectionError?
    /// When the accessory last sent bytes, or the connection opened: where its idle time starts.
    private var lastReceived = ContinuousClock.now
    /// See `quietBeforeClose`.
    private var quietBeforeEnd: Duration?
    private var closeWaiters: [CheckedContinuation<HAPConnectionError, Never>] = []
    /// The task that times requests out, and when it wakes next. One per connection rather than one per
    /// request: making and cancelling a sleeping task for each request cost 20-40 µs of a 200 µs read on a
    /// busy machine (hap2mqtt-bench hap).
    private var watchdog: (task: Task<Void, Never>, wake: ContinuousClock.Instant)?

    private init(tcp: TCPConnection, requestTimeout: Duration, logger: Logger) {
        self.tcp = tcp
        self.host = tcp.host
        self.port = tcp.port
        self.requestTimeout = requestTimeout
        self.logger = logger.with(["hap.host": TCPError.endpoint(tcp.host, tcp.port)])
        (events, eventContinuation) = AsyncStream.makeStream(
            of: [HAPEventValue].self,
            bufferingPolicy: .bufferingNewest(Self.eventBufferLimit))
    }

    deinit {
        tcp.close()
        eventContinuation.finish()
    }

    /// Opens a cleartext connection to the accessory server at `host`:`port`.
    /// - Parameters:
    ///   - connectTimeout: the limit for the TCP connection, over all of the host's addresses.
    ///   - requestTimeout: the default limit for each request's answer.
    ///   - logger: where connection events go (never bodies, codes or keys).
    /// - Throws: `HAPConnectionError.connectFailed` with the `TCPError`.
    public static func connect(
        host: String, port: UInt16, connectTimeout: Duration = TCPConnection.defaultConnectTimeout,
        requestTimeout: Duration = defaultRequestTimeout, logger: Logger
    ) async throws(HAPConnectionError) -> HAPConnection {
        let tcp: TCPConnection
        do {
            tcp = try await TCPConnection.connect(host: host, port: port, timeout: connectTimeout)
        } catch {
            throw .connectFailed(error)
        }
        let connection = HAPConnection(tcp: tcp, requestTimeout: requestTimeout, logger: logger)
        await connection.startReading()
        connection.logger.debug("connected", ["hap.address": tcp.remoteAddress])
        return connection
    }

    /// Whether pair-verify has finished and the connection is encrypted.
    public var isEncrypted: Bool { cipher != nil }

    /// Why the connection closed; nil while it is open.
    public var closeReason: HAPConnectionError? { reason }

    /// How long the accessory had been quiet when the connection ended, for the ends that an idle time-out
    /// on its side explains (docs/hap-notes.md §7.8): for a close or reset by the accessory, from its last
    /// bytes to the close; for a request it never answered (a connection dropped without a word), from
    /// its last bytes to that request. nil while open and for every other end.
    public var quietBeforeClose: Duration? { quietBeforeEnd }

    /// How long the accessory has sent nothing (no answer, no event), counted from the connection's start:
    /// a connection dropped without a FIN looks like one quiet for long (docs/DESIGN.md "Writes").
    public var quietTime: Duration { ContinuousClock.now - lastReceived }

    /// Waits until the connection closes and returns why (at once when it is closed already).
    public func waitUntilClosed() async -> HAPConnectionError {
        if let reason { return reason }
        return await withCheckedContinuation { closeWaiters.append($0) }
    }

    /// Closes the connection. The request in flight and queued ones fail with `.closed`; `events` finishes.
    /// Calling it again does nothing.
    public func close() { shutDown(.closed) }

    /// Sends `request` when its turn comes and returns the accessory's response (any HTTP status).
    ///
    /// Cancelling the calling task does not withdraw the request: once queued it goes out, and the answer
    /// or the time-out ends the call (an answer left unread would shift every later one).
    /// - Parameter timeout: the limit for the answer, counted from the send; nil for `requestTimeout`.
    /// - Throws: `HAPConnectionError`: `.requestTimedOut` (the connection is then closed), or the reason the
    ///   connection closed before the answer came.
    public func send(_ request: HTTPRequest, timeout: Duration? = nil) async throws(HAPConnectionError) -> HTTPMessage {
        try await send(request, timeout: timeout, switchesToEncryption: false)
    }

    /// `send`, where the response to this request is the last cleartext message (pair-verify M4): bytes
    /// after it are held until `startEncryption` or the connection closes.
    func send(_ request: HTTPRequest, timeout: Duration?, switchesToEncryption: Bool) async throws(HAPConnectionError)
        -> HTTPMessage
    {
        try await acquireTurn()
        defer { releaseTurn() }
        if let reason { throw reason }
        var bytes = request.encoded(host: tcp.remoteAddress)
        if cipher != nil {
            do {
                bytes = try cipher?.seal(bytes) ?? bytes
            } catch {
                shutDown(.sessionBroken(error))
                throw .sessionBroken(error)
            }
        }
        nextRequestID += 1
        let id = nextRequestID
        let summary = "\(request.method.rawValue) \(request.path)"
        let limit = timeout ?? requestTimeout
        let deadline = ContinuousClock.now.advanced(by: limit)
        inFlight = InFlight(
            id: id, summary: summary, switchesToEncryption: switchesToEncryption, limit: limit, deadline: deadline)
        watch(until: deadline)
        do {
            try await tcp.send(bytes)
        } catch {
            shutDown(.connectionLost(error))
        }
        let outcome: Result<HTTPMessage, HAPConnectionError> = await withCheckedContinuation { continuation in
            guard var entry = inFlight, entry.id == id else {
                continuation.resume(returning: .failure(reason ?? .closed))
                return
            }
            if let outcome = entry.outcome {
                inFlight = nil
                continuation.resume(returning: outcome)
            } else {
                entry.continuation = continuation
                inFlight = entry
            }
        }
        return try outcome.get()
    }

    // MARK: - Turns

    /// Waits until no other request is in flight; the caller then owns the connection until `releaseTurn`.
    private func acquireTurn() async throws(HAPConnectionError) {
        if let reason { throw reason }
        guard busy else {
            busy = true
            return
        }
        let granted: Result<Void, HAPConnectionError> = await withCheckedContinuation { turnQueue.append($0) }
        try granted.get()
    }

    /// Hands the connection to the next queued request (which then owns it), or marks it free.
    private func releaseTurn() {
        if turnQueue.isEmpty {
            busy = false
        } else {
            turnQueue.removeFirst().resume(returning: .success(()))
        }
    }

    // MARK: - Completion and closing

    /// Settles the request in flight with `outcome`; if its sender is not waiting yet, the outcome waits.
    private func complete(_ outcome: Result<HTTPMessage, HAPConnectionError>) {
        guard var entry = inFlight, entry.outcome == nil else { return }
        if let continuation = entry.continuation {
            inFlight = nil
            continuation.resume(returning: outcome)
        } else {
            entry.outcome = outcome
            inFlight = entry
        }
    }

    /// Makes sure the watchdog wakes by `deadline`: a new one only when there is none or it would wake
    /// later (a request with a shorter limit than the one before).
    private func watch(until deadline: ContinuousClock.Instant) {
        if let watchdog, watchdog.wake <= deadline { return }
        watchdog?.task.cancel()
        let task = Task { [weak self] in
            var wake = deadline
            while true {
                try? await Task.sleep(until: wake, clock: .continuous)
                guard !Task.isCancelled, let next = await self?.watchdogWoke() else { return }
                wake = next
            }
        }
        watchdog = (task, deadline)
    }

    /// The watchdog's check: times out the request in flight when its deadline has passed; returns when to
    /// look again (that request's deadline), or nil when nothing is in flight and the watchdog ends.
    private func watchdogWoke() -> ContinuousClock.Instant? {
        guard let entry = inFlight, entry.outcome == nil, reason == nil else {
            watchdog = nil
            return nil
        }
        guard ContinuousClock.now < entry.deadline else {
            watchdog = nil
            shutDown(.requestTimedOut(request: entry.summary, seconds: entry.limit.inSeconds))
            return nil
        }
        watchdog?.wake = entry.deadline
        return entry.deadline
    }

    /// Ends the connection for `why`, once: closes the socket, fails the request in flight and the queued
    /// ones, finishes `events` and wakes `waitUntilClosed()`.
    func shutDown(_ why: HAPConnectionError) {
        guard reason == nil else { return }
        reason = why
        switch why {
        case .connectionLost(.closedByPeer), .connectionLost(.reset):
            quietBeforeEnd = ContinuousClock.now - lastReceived
        case .requestTimedOut:
            if let entry = inFlight { quietBeforeEnd = (entry.deadline - entry.limit) - lastReceived }
        default:
            break
        }
        watchdog?.task.cancel()
        watchdog = nil
        tcp.close()
        complete(.failure(why))
        let queued = turnQueue
        turnQueue = []
        for waiter in queued { waiter.resume(returning: .failure(why)) }
        eventContinuation.finish()
        let waiters = closeWaiters
        closeWaiters = []
        for waiter in waiters { waiter.resume(returning: why) }
        // Debug only: whoever uses the connection learns why from the failed request or
        // `waitUntilClosed()` and decides what the user needs to see.
        logger.debug("connection closed: \(why)")
    }

    // MARK: - Reading

    /// Starts the task that reads from the socket. It holds the connection weakly, so dropping the last
    /// reference closes the socket (in `deinit`), which ends the task.
    private func startReading() {
        let tcp = self.tcp
        Task { [weak self] in
            while true {
                let chunk: Result<[UInt8], TCPError>
                do throws(TCPError) {
                    chunk = .success(try await tcp.receive())
                } catch {
                    chunk = .failure(error)
                }
                guard let connection = self else {
                    tcp.close()
                    return
                }
                guard await connection.handle(chunk) else { return }
            }
        }
    }

    /// Takes one read's outcome; false when reading is over.
    private func handle(_ chunk: Result<[UInt8], TCPError>) -> Bool {
        guard reason == nil else { return false }
        switch chunk {
        case .failure(let error):
            shutDown(error == .closed ? .closed : .connectionLost(error))
            return false
        case .success(let bytes):
            lastReceived = .now
            receive(bytes)
            return reason == nil
        }
    }

    private func receive(_ bytes: [UInt8]) {
        switch readMode {
        case .awaitingKeys(let held):
            readMode = .awaitingKeys(held: held + bytes)
        case .cleartext where inFlight?.switchesToEncryption == true:
            // The answer to pair-verify M3 may share a read with the first encrypted bytes: parse byte by
            // byte (it is short) and hold whatever follows it for the session keys.
            for (index, byte) in bytes.enumerated() {
                parse([byte])
                guard reason == nil else { return }
                if case .awaitingKeys = readMode {
                    readMode = .awaitingKeys(held: Array(bytes[(index + 1)...]))
                    return
                }
            }
        case .cleartext:
            parse(bytes)
        case .encrypted:
            let plaintext: [UInt8]
            do {
                plaintext = try cipher?.open(bytes) ?? []
            } catch {
                shutDown(.sessionBroken(error))
                return
            }
            if !plaintext.isEmpty { parse(plaintext) }
        }
    }

    /// Feeds plaintext to the HTTP parser and routes each complete message: events to `events`, responses
    /// to the request in flight.
    private func parse(_ plaintext: [UInt8]) {
        let messages: [HTTPMessage]
        do {
            messages = try parser.feed(plaintext)
        } catch {
            shutDown(.malformedHTTP(error))
            return
        }
        for message in messages {
            switch message.kind {
            case .event:
                deliverEvent(message)
            case .response:
                guard let entry = inFlight, entry.outcome == nil else {
                    shutDown(.protocolViolation("an HTTP \(message.status) response to no request"))
                    return
                }
                if entry.switchesToEncryption { readMode = .awaitingKeys(held: []) }
                complete(.success(message))
            }
        }
    }

    private func deliverEvent(_ message: HTTPMessage) {
        do {
            let values = try HAPEventValue.parse(eventBody: message.body)
            if !values.isEmpty { eventContinuation.yield(values) }
        } catch {
            logger.warning("ignored an unreadable event: \(error)")
        }
    }

    // MARK: - Encryption

    /// Marks the start of pair-verify; false when it already ran or the connection is encrypted.
    func beginVerify() -> Bool {
        guard !verifyStarted, cipher == nil else { return false }
        verifyStarted = true
        return true
    }

    /// Switches to the encrypted framing with `keys` (after pair-verify M4) and decrypts what arrived
    /// meanwhile.
    func startEncryption(_ keys: SessionKeys) {
        guard reason == nil else { return }
        cipher = HAPSessionCipher(keys: keys)
        let held: [UInt8]
        if case .awaitingKeys(let bytes) = readMode { held = bytes } else { held = [] }
        readMode = .encrypted
        if !held.isEmpty { receive(held) }
    }
}
