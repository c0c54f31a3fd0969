import Logging
import Synchronization

/// The receiving side of a `HAPConnection`, called where the bytes were read (`SocketReader`: the read
/// loop's thread on Linux): decrypts and parses them there, resumes the request in flight with its
/// response and yields events to the connection's stream, with no thread woken in between.
/// Its state sits behind one lock, since the connection's actor also touches it: a request going out,
/// the session keys after pair-verify, the close.
///
/// Bytes that end the session (a frame that fails authentication, bytes that are not HTTP, a response to
/// no request, the end of the stream) fail the request in flight at once and are reported to
/// `whenEnded`, where the connection closes.
final class HAPConnectionReader: SocketReader {
    typealias Outcome = Result<HTTPMessage, HAPConnectionError>

    /// How bytes from the accessory are read: before pair-verify, between its last response and the
    /// session keys (bytes are held), and encrypted.
    private enum ReadMode {
        case cleartext
        case awaitingKeys(held: [UInt8])
        case encrypted
    }

    /// The request whose response is awaited.
    private struct Awaited {
        let id: UInt64
        let switchesToEncryption: Bool
        var outcome: Outcome?
        var continuation: CheckedContinuation<Outcome, Never>?
    }

    private struct State {
        var readMode = ReadMode.cleartext
        /// Opens frames only; the connection's actor seals with a copy of its own.
        var cipher: HAPSessionCipher?
        var parser = HTTPResponseParser()
        var awaited: Awaited?
        /// When the accessory last sent bytes, or the connection opened: where its idle time starts.
        var lastReceived = ContinuousClock.now
        /// Why the connection ended, once known here; no byte is read after it.
        var end: HAPConnectionError?
        var whenEnded: (@Sendable (HAPConnectionError) -> Void)?
        /// One line a minute about unreadable events: an accessory that sends thousands a second must not
        /// flood the log (the events are dropped either way).
        var unreadableLog = LogLimiter()
    }

    /// What one call found, done after the lock is let go, in this order.
    private enum Action {
        case event(HTTPMessage)
        case resume(CheckedContinuation<Outcome, Never>, Outcome)
        case ended(HAPConnectionError, (@Sendable (HAPConnectionError) -> Void)?)
    }

    private let state = Mutex(State())
    private let events: AsyncStream<[HAPEventValue]>.Continuation
    private let logger: Logger

    init(events: AsyncStream<[HAPEventValue]>.Continuation, logger: Logger) {
        self.events = events
        self.logger = logger
    }

    /// Where the connection learns of an end found in the bytes (called once, on the reading thread).
    func whenEnded(_ body: @escaping @Sendable (HAPConnectionError) -> Void) {
        state.withLock { $0.whenEnded = body }
    }

    /// When the accessory last sent bytes (or the connection opened).
    var lastReceived: ContinuousClock.Instant { state.withLock { $0.lastReceived } }

    // MARK: - The connection's side

    /// Expects the response to request `id` next; the reason instead when the connection has ended.
    func expect(_ id: UInt64, switchesToEncryption: Bool) -> HAPConnectionError? {
        state.withLock { s in
            if let end = s.end { return end }
            s.awaited = Awaited(id: id, switchesToEncryption: switchesToEncryption)
            return nil
        }
    }

    /// Hands `continuation` the outcome of request `id`: at once when it is in, else when it comes.
    func outcome(of id: UInt64, _ continuation: CheckedContinuation<Outcome, Never>) {
        let now: Outcome? = state.withLock { s in
            guard var awaited = s.awaited, awaited.id == id else { return .failure(s.end ?? .closed) }
            if let outcome = awaited.outcome {
                s.awaited = nil
                return outcome
            }
            awaited.continuation = continuation
            s.awaited = awaited
            return nil
        }
        if let now { continuation.resume(returning: now) }
    }

    /// Whether request `id` still waits for its answer.
    func isAwaiting(_ id: UInt64) -> Bool {
        state.withLock { s in s.awaited.map { $0.id == id && $0.outcome == nil } ?? false }
    }

    /// Switches to the encrypted framing with `keys` and decrypts what arrived meanwhile.
    func startEncryption(_ keys: SessionKeys) {
        whileOpen { s, actions in
            s.cipher = HAPSessionCipher(keys: keys)
            let held: [UInt8]
            if case .awaitingKeys(let bytes) = s.readMode { held = bytes } else { held = [] }
            s.readMode = .encrypted
            if !held.isEmpty { held.withUnsafeBytes { Self.receive($0, &s, &actions) } }
        }
    }

    /// The connection has ended for `why` (its actor closes it): the request in flight fails with it and
    /// no byte is read any more.
    func end(_ why: HAPConnectionError) {
        whileOpen { s, actions in Self.fail(why, &s, &actions, report: false) }
    }

    // MARK: - SocketReader

    func received(_ bytes: UnsafeRawBufferPointer) {
        whileOpen { s, actions in
            s.lastReceived = .now
            Self.receive(bytes, &s, &actions)
        }
    }

    func ended(_ error: TCPError) {
        whileOpen { s, actions in
            Self.fail(error == .closed ? .closed : .connectionLost(error), &s, &actions, report: true)
        }
    }

    /// Runs `body` under the lock unless the connection has ended, then what it found, in order.
    private func whileOpen(_ body: (inout State, inout [Action]) -> Void) {
        let actions: [Action] = state.withLock { s in
            guard s.end == nil else { return [] }
            var actions: [Action] = []
            body(&s, &actions)
            return actions
        }
        run(actions)
    }

    // MARK: - Under the lock

    private static func receive(_ bytes: UnsafeRawBufferPointer, _ s: inout State, _ actions: inout [Action]) {
        switch s.readMode {
        case .awaitingKeys(var held):
            s.readMode = .cleartext  // so that `held` is the only reference while it grows
            held.append(contentsOf: bytes)
            s.readMode = .awaitingKeys(held: held)
        case .cleartext where s.awaited?.switchesToEncryption == true:
            // The answer to pair-verify M3 may share a read with the first encrypted bytes: parse byte by
            // byte (it is short) and hold whatever follows it for the session keys.
            for (index, byte) in bytes.enumerated() {
                parse(CollectionOfOne(byte), &s, &actions)
                guard s.end == nil else { return }
                if case .awaitingKeys = s.readMode {
                    s.readMode = .awaitingKeys(held: Array(UnsafeRawBufferPointer(rebasing: bytes[(index + 1)...])))
                    return
                }
            }
        case .cleartext:
            parse(bytes, &s, &actions)
        case .encrypted:
            let plaintext: [UInt8]
            do {
                plaintext = try s.cipher?.open(bytes) ?? []
            } catch {
                fail(.sessionBroken(error), &s, &actions, report: true)
                return
            }
            if !plaintext.isEmpty { parse(plaintext, &s, &actions) }
        }
    }

    /// Feeds plaintext to the HTTP parser and routes each complete message: events to the stream,
    /// responses to the request in flight.
    private static func parse(_ plaintext: some Collection<UInt8>, _ s: inout State, _ actions: inout [Action]) {
        let messages: [HTTPMessage]
        do {
            messages = try s.parser.feed(plaintext)
        } catch {
            fail(.malformedHTTP(error), &s, &actions, report: true)
            return
        }
        for message in messages {
            switch message.kind {
            case .event:
                actions.append(.event(message))
            case .response:
                guard var awaited = s.awaited, awaited.outcome == nil else {
                    fail(
                        .protocolViolation("an HTTP \(message.status) response to no request"), &s, &actions,
                        report: true)
                    return
                }
                if awaited.switchesToEncryption { s.readMode = .awaitingKeys(held: []) }
                settle(&awaited, .success(message), &s, &actions)
            }
        }
    }

    /// Settles the request in flight with `outcome`; if its sender is not waiting yet, the outcome waits.
    private static func settle(
        _ awaited: inout Awaited, _ outcome: Outcome, _ s: inout State, _ actions: inout [Action]
    ) {
        if let continuation = awaited.continuation {
            s.awaited = nil
            actions.append(.resume(continuation, outcome))
        } else {
            awaited.outcome = outcome
            s.awaited = awaited
        }
    }

    private static func fail(_ why: HAPConnectionError, _ s: inout State, _ actions: inout [Action], report: Bool) {
        s.end = why
        if var awaited = s.awaited, awaited.outcome == nil { settle(&awaited, .failure(why), &s, &actions) }
        if report { actions.append(.ended(why, s.whenEnded)) }
        s.whenEnded = nil
    }

    // MARK: - After the lock

    private func run(_ actions: [Action]) {
        for action in actions {
            switch action {
            case .event(let message): deliverEvent(message)
            case .resume(let continuation, let outcome): continuation.resume(returning: outcome)
            case .ended(let why, let whenEnded): whenEnded?(why)
            }
        }
    }

    private func deliverEvent(_ message: HTTPMessage) {
        do {
            let values = try HAPEventValue.parse(eventBody: message.body)
            if !values.isEmpty { events.yield(values) }
        } catch {
            let line = state.withLock { $0.unreadableLog.line("ignored an unreadable event: \(error)", about: "event") }
            if let line { logger.warning("\(line)") }
        }
    }
}
