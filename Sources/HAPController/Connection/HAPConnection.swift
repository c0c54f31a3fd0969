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
/// response), go to `events` and are never taken for a response (HA core#24094). The bytes are decrypted
/// and parsed where they are read (`HAPConnectionReader`, on the read loop's thread on Linux), which
/// resumes the caller and yields the events from there.
///
/// A request that gets no answer within its time-out, a frame that fails authentication, bytes that are
/// not HTTP and a dropped TCP connection all close the connection: the request in flight fails with that
/// `HAPConnectionError`, every queued one with `.notSent` (it never went out), `events` finishes, and
/// `waitUntilClosed()` returns the reason.
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
    /// The least time a request sent with `answerBy` must have left for its answer: one sent with less
    /// would most likely go unanswered in time, and its time-out would reset a connection that is fine.
    public static let shortestAnswerTime: Duration = .seconds(1)
    /// Event messages held for a slow consumer before the oldest are dropped.
    public static let eventBufferLimit = 4096

    let logger: Logger
    let tcp: TCPConnection
    let eventContinuation: AsyncStream<[HAPEventValue]>.Continuation
    /// The receiving side: decrypts, parses, answers the request in flight and yields the events.
    let reader: HAPConnectionReader

    /// The request whose response is awaited (its answer is matched in `reader`).
    struct InFlight {
        let id: UInt64
        let method: HTTPMethod
        let path: String
        let limit: Duration
        let deadline: ContinuousClock.Instant

        /// `GET /accessories`, for a time-out's message (made only then: it cost a string per request).
        var summary: String { "\(method.rawValue) \(path)" }
    }

    /// Seals requests once pair-verify finished; `reader` opens the answers with its own copy.
    private var cipher: HAPSessionCipher?
    private var verifyStarted = false
    var inFlight: InFlight?
    private var nextRequestID: UInt64 = 0
    /// Whose turn it is to send: one request in flight at a time, the others waiting in order.
    var turns = RequestTurns()
    /// How the connection ended, and who waits for it.
    var end = ConnectionEnd()
    /// When `RequestDeadlines` calls this connection next to time out the request in flight; nil when it
    /// will not. Asked once per connection rather than per request: a sleeping task made and cancelled for
    /// each request cost 20-40 µs of a 200 µs read on a busy machine (hap2mqtt-bench hap).
    var watchdogWake: ContinuousClock.Instant?

    private init(tcp: TCPConnection, requestTimeout: Duration, logger: Logger) {
        self.tcp = tcp
        self.host = tcp.host
        self.port = tcp.port
        self.requestTimeout = requestTimeout
        self.logger = logger.with(["hap.host": TCPError.endpoint(tcp.host, tcp.port)])
        (events, eventContinuation) = AsyncStream.makeStream(
            of: [HAPEventValue].self,
            bufferingPolicy: .bufferingNewest(Self.eventBufferLimit))
        reader = HAPConnectionReader(events: eventContinuation, logger: self.logger)
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
        // Weakly: dropping the last reference closes the socket (in `deinit`), which ends the reading.
        connection.reader.whenEnded { [weak connection] why in
            guard let connection else { return }
            Task { await connection.shutDown(why) }
        }
        tcp.startReading(into: connection.reader)
        connection.logger.debug("connected", ["hap.address": tcp.remoteAddress])
        return connection
    }

    /// Whether pair-verify has finished and the connection is encrypted.
    public var isEncrypted: Bool { cipher != nil }

    /// Sends `request` when its turn comes and returns the accessory's response (any HTTP status).
    ///
    /// Cancelling the calling task does not withdraw the request: once queued it goes out, and the answer
    /// or the time-out ends the call (an answer left unread would shift every later one).
    /// - Parameter timeout: the limit for the answer, counted from the send; nil for `requestTimeout`.
    /// - Throws: `HAPConnectionError`: `.requestTimedOut` (the connection is then closed), the reason the
    ///   connection closed before the answer came, or `.notSent` when it closed before the request went out.
    public func send(_ request: HTTPRequest, timeout: Duration? = nil) async throws(HAPConnectionError) -> HTTPMessage {
        try await send(request, timeout: timeout, switchesToEncryption: false)
    }

    /// `send`, refused with `.notVerified` before anything is sent when pair-verify has not finished: one
    /// entry into the actor for both, rather than asking `isEncrypted` first and then sending.
    /// - Parameter answerBy: when given, the answer must come by then (the limit is what is left of it
    ///   when the request's turn comes), and a request whose turn comes with less than
    ///   `shortestAnswerTime` left is not sent (`.notSent`).
    func sendEncrypted(_ request: HTTPRequest, timeout: Duration?, answerBy: ContinuousClock.Instant? = nil)
        async throws(HAPConnectionError) -> HTTPMessage
    {
        guard cipher != nil else { throw .notVerified }
        return try await send(request, timeout: timeout, switchesToEncryption: false, answerBy: answerBy)
    }

    /// `send`, where the response to this request is the last cleartext message (pair-verify M4): bytes
    /// after it are held until `startEncryption` or the connection closes. A failure before the request's
    /// bytes reach the socket is `.notSent`: the caller may send it again elsewhere, as it cannot have
    /// been carried out.
    func send(
        _ request: HTTPRequest, timeout: Duration?, switchesToEncryption: Bool,
        answerBy: ContinuousClock.Instant? = nil
    ) async throws(HAPConnectionError) -> HTTPMessage {
        try await acquireTurn()
        defer { releaseTurn() }
        if let reason = end.reason { throw .notSent(endedBy: reason) }
        let start = ContinuousClock.now
        if let answerBy, answerBy - start < Self.shortestAnswerTime {
            throw .notSent("too little of its time was left when the connection was free")
        }
        var bytes = request.encoded(host: tcp.remoteAddress)
        if cipher != nil {
            do {
                bytes = try cipher?.seal(bytes) ?? bytes
            } catch {
                shutDown(.sessionBroken(error))
                throw .notSent(endedBy: .sessionBroken(error))
            }
        }
        nextRequestID += 1
        let id = nextRequestID
        if let ended = reader.expect(id, switchesToEncryption: switchesToEncryption) {
            shutDown(ended)
            throw .notSent(endedBy: ended)
        }
        let limit = answerBy.map { $0 - start } ?? timeout ?? requestTimeout
        let deadline = start.advanced(by: limit)
        inFlight = InFlight(id: id, method: request.method, path: request.path, limit: limit, deadline: deadline)
        watch(until: deadline)
        do {
            try await tcp.send(bytes)
        } catch {
            shutDown(.connectionLost(error))
        }
        let reader = self.reader
        let outcome = await withCheckedContinuation { reader.outcome(of: id, $0) }
        inFlight = nil
        // Every failure ends the connection; the reader may have found it before the actor heard.
        if case .failure(let why) = outcome { shutDown(why) }
        return try outcome.get()
    }

    // MARK: - Turns

    /// Waits until no other request is in flight; the caller then owns the connection until `releaseTurn`.
    private func acquireTurn() async throws(HAPConnectionError) {
        if let reason = end.reason { throw .notSent(endedBy: reason) }
        guard turns.busy else {
            turns.busy = true
            return
        }
        let granted: Result<Void, HAPConnectionError> = await withCheckedContinuation { turns.queue.append($0) }
        try granted.get()
    }

    /// Hands the connection to the next queued request (which then owns it), or marks it free.
    private func releaseTurn() {
        if turns.queue.isEmpty {
            turns.busy = false
        } else {
            turns.queue.removeFirst().resume(returning: .success(()))
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
        guard end.reason == nil else { return }
        cipher = HAPSessionCipher(keys: keys)
        reader.startEncryption(keys)
    }
}

/// Whose turn it is to send on a `HAPConnection`.
struct RequestTurns {
    /// A request holds the turn.
    var busy = false
    /// The requests waiting for it, in order.
    var queue: [CheckedContinuation<Result<Void, HAPConnectionError>, Never>] = []
}

/// How a `HAPConnection` ended, once it has.
struct ConnectionEnd {
    /// Why it closed; nil while it is open.
    var reason: HAPConnectionError?
    /// See `HAPConnection.quietBeforeClose`.
    var quietBeforeEnd: Duration?
    /// The callers of `waitUntilClosed()` while it is open.
    var waiters: [CheckedContinuation<HAPConnectionError, Never>] = []
}
