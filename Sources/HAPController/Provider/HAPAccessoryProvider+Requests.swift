import Foundation
public import HomeModel
public import HomeStore
import JSON
import SystemSupport

/// Reads, writes and identify from the store, over the live connection (docs/DESIGN.md "Writes").
extension HAPAccessoryProvider {
    /// Reads characteristics in one `GET /characteristics` (split when long). Waits for a reconnect under
    /// way (`session(after:)`), and checks a connection quiet for a while first (`checkedSession()`); fails fast with `.unreachable` while there is no connection; `.unknown` for an address this provider does not have;
    /// `.status` with the accessory's HAP status per characteristic.
    public func read(_ addresses: [CharacteristicAddress]) async -> [CharacteristicAddress: Result<
        CharacteristicValue?, AccessoryError
    >] {
        var results: [CharacteristicAddress: Result<CharacteristicValue?, AccessoryError>] = [:]
        let (client, index, known) = route(await checkedSession(), addresses, into: &results)
        guard let client, let index, !known.isEmpty else { return results }
        let answers: [HAPCharacteristicID: HAPCharacteristicResult]
        do {
            answers = try await readInBatches(known.map(\.id), on: client)
        } catch {
            for (address, _) in known { results[address] = .failure(Self.accessoryError(error)) }
            return results
        }
        await note(answers)
        for (address, id) in known {
            guard let answer = answers[id] else {
                results[address] = .failure(.status(.resourceDoesNotExist))
                continue
            }
            results[address] =
                answer.status.isSuccess ? answered(answer.value, for: id, index) : .failure(.status(answer.status))
        }
        return results
    }

    /// Writes values and awaits the accessory's answer, by `HAPConnection.defaultRequestTimeout` from now
    /// (`write(_:deadline:)`).
    public func write(_ writes: [CharacteristicWrite]) async -> [CharacteristicAddress: Result<
        CharacteristicValue?, AccessoryError
    >] {
        await write(writes, deadline: .now + HAPConnection.defaultRequestTimeout)
    }

    /// It answers every write by the deadline the store gives (`write(_:deadline:)`).
    public nonisolated var keepsWriteDeadline: Bool { true }

    /// Writes values and awaits the accessory's answer, by `deadline`: characteristics with `tw` in one
    /// timed write (`PUT /prepare`, then the write with its `pid`), the others in one `PUT /characteristics`;
    /// `wantsResponse` asks for the write response (`"r":true`). Waits for a reconnect under way
    /// (`session(after:by:)`), checks a connection quiet for a while first (`checkedSession(by:)`), and sends
    /// a write once more on the new connection when it never went out on the old one, or, for a plain value
    /// write, when its connection closed before any answer was read (`send(_:timed:on:index:deadline:)`).
    ///
    /// The failures say whether the write went out (docs/DESIGN.md "Writes"): `.unconfirmed` when it was
    /// sent and no answer came (its connection is reset; the value is read back on the next session and
    /// reported as `.writesSettled`); `.unreachable` (offline since …) or `.notSent` when it never went
    /// out; `.status` with the accessory's HAP status per characteristic.
    public func write(_ writes: [CharacteristicWrite], deadline: ContinuousClock.Instant) async
        -> [CharacteristicAddress: Result<CharacteristicValue?, AccessoryError>]
    {
        var results: [CharacteristicAddress: Result<CharacteristicValue?, AccessoryError>] = [:]
        let (client, index, known) = route(
            await checkedSession(by: deadline), writes.map(\.address), into: &results)
        guard let client, let index, !known.isEmpty else { return results }
        var items: (plain: [HAPCharacteristicWriteItem], timed: [HAPCharacteristicWriteItem]) = ([], [])
        var idOf: [CharacteristicAddress: HAPCharacteristicID] = [:]
        for write in writes {
            guard let id = known.first(where: { $0.address == write.address })?.id, let format = index.formats[id]
            else { continue }
            do {
                let item = try HAPCharacteristicWriteItem(
                    id: id, value: write.value, format: format, wantsResponse: write.wantsResponse)
                if write.timed { items.timed.append(item) } else { items.plain.append(item) }
                idOf[write.address] = id
            } catch {
                results[write.address] = .failure(
                    .failed("cannot write \(write.value) as \(format.rawValue): \(error)"))
            }
        }
        var answers: [HAPCharacteristicID: HAPCharacteristicResult] = [:]
        var failures: [HAPCharacteristicID: AccessoryError] = [:]
        var sentOn = machine.sessionsInstalled
        for (batch, timed) in [(items.plain, false), (items.timed, true)] where !batch.isEmpty {
            var attempt = WriteAttempt(client: client, session: machine.sessionsInstalled)
            do {
                let answered = try await send(batch, timed: timed, index: index, deadline: deadline, &attempt)
                answers.merge(answered) { _, new in new }
            } catch {
                let failure = writeFailure(error, attempt)
                for item in batch { failures[item.id] = failure }
                if case .unconfirmed = failure { sentOn = attempt.session }
            }
        }
        await note(answers)
        for (id, answer) in answers where answer.status.isSuccess { learning.verification.forget(id) }
        for (address, id) in idOf {
            if let answer = answers[id] {
                unconfirmed.forget(id)
                results[address] =
                    answer.status.isSuccess ? answered(answer.value, for: id, index) : .failure(.status(answer.status))
            } else {
                let failure = failures[id] ?? .status(.resourceDoesNotExist)
                if case .unconfirmed = failure, let write = writes.first(where: { $0.address == address }) {
                    unconfirmed.add(id, address: address, written: write.value, session: sentOn)
                }
                results[address] = .failure(failure)
            }
        }
        // A session that came meanwhile was synced after the write's connection ended: read it back there.
        if let client = self.client, !unconfirmed.due(on: machine.sessionsInstalled).isEmpty {
            Task { await self.readBackUnconfirmedWrites(on: client) }
        }
        return results
    }

    /// The session for a read or write: `session(by:)`, but a connection from which nothing came for
    /// `quietBeforeCheck` or more is first asked for the keep-alive characteristic, within `probeTimeout`
    /// (when `deadline` leaves that much time). A connection dropped without a FIN (a lost network, an accessory or router that
    /// forgot it) looks open and never answers: sent on it, the request would wait out its whole time-out
    /// and fail. One that does not answer the check is closed, and the request waits for the reconnect
    /// (docs/DESIGN.md "Writes"). Nothing of the request itself has gone out by then, so any write may go on
    /// the new one.
    func checkedSession(by deadline: ContinuousClock.Instant? = nil) async -> HAPClient? {
        guard let client = await session(by: deadline) else { return nil }
        guard let probe = index?.keepalive, await client.connection.quietTime >= Self.quietBeforeCheck else {
            return client
        }
        // With less time left than the check takes, the write goes out unchecked: a check cut short would
        // close a connection that is only slow, and a write on a dead one is answered `unconfirmed` and
        // read back all the same.
        if let deadline, deadline - .now < Self.probeTimeout { return client }
        do {
            _ = try await client.read([probe], timeout: Self.probeTimeout)
            return client
        } catch {
            logger.info(
                "the connection to \(displayName) was quiet and does not answer (\(error)); waiting for a new connection"
            )
            await client.connection.close()
            return await session(after: client, by: deadline)
        }
    }

    /// How long a connection may have been quiet before a read or write checks it first.
    static let quietBeforeCheck = Duration.seconds(5)

    /// What a write's requests have done so far: the client it goes on, and whether one of them went out
    /// (then the accessory may have carried the write out, whatever happens next).
    struct WriteAttempt {
        /// The client it goes on, and the number of its session (`sessionsInstalled`).
        var client: HAPClient
        var session: Int
        var sent = false

        /// It goes on `client`, the live session's now.
        mutating func move(to client: HAPClient, session: Int) {
            self.client = client
            self.session = session
        }
    }

    /// Sends one batch, by `deadline`. A request that never went out (`.notSent`) goes on the next
    /// connection, whatever it writes. A plain write whose connection closed before any answer was read
    /// may or may not have been carried out; writing the same values again does no harm, so it goes once
    /// more on the next connection (docs/DESIGN.md "Writes"). Not for Identify or stateless
    /// characteristics (an identify or a button press would happen twice), nor timed writes (their `pid`
    /// belongs to the old connection).
    private func send(
        _ batch: [HAPCharacteristicWriteItem], timed: Bool, index: AccessoryIndex, deadline: ContinuousClock.Instant,
        _ attempt: inout WriteAttempt
    ) async throws(HAPConnectionError) -> [HAPCharacteristicID: HAPCharacteristicResult] {
        var repeated = false
        while true {
            do {
                return try await attempt.client.write(batch, timed: timed, answerBy: deadline)
            } catch .notSent(let why) {
                guard let next = await session(after: attempt.client, by: deadline), !Task.isCancelled else {
                    throw .notSent(why)
                }
                attempt.move(to: next, session: machine.sessionsInstalled)
            } catch .connectionLost(let why) {
                attempt.sent = true
                guard !timed, !repeated, batch.allSatisfy({ index.mayRepeatWrite(to: $0.id) }),
                    let next = await session(after: attempt.client, by: deadline), !Task.isCancelled
                else { throw .connectionLost(why) }
                logger.info(
                    "the connection to \(displayName) closed before it answered a write (\(why)); writing again on the new connection"
                )
                repeated = true
                attempt.move(to: next, session: machine.sessionsInstalled)
            } catch {
                if case .refused = error {} else if case .invalidResponse = error {} else { attempt.sent = true }
                throw error
            }
        }
    }

    /// What a write that got no answer reports: `.unconfirmed` once a request of it went out, else why it
    /// was not sent (offline since …, when no session came).
    private func writeFailure(_ error: HAPConnectionError, _ attempt: WriteAttempt) -> AccessoryError {
        switch error {
        case .refused(let status, _): return .status(status)
        case .invalidResponse: return .failed(error.description)
        case .notSent(let why) where !attempt.sent:
            // Offline since …, once the connection's end has reached the machine; until then, why not sent.
            return client == nil && machine.offlineSince != nil ? .unreachable(offlineDescription) : .notSent(why)
        case .requestTimedOut(let request, let seconds):
            // Its limit was what was left of the write's time-out when its turn came: said in whole seconds.
            return .unconfirmed(
                "the accessory did not answer \(request) within \(Int(seconds.rounded())) s; the connection was reset")
        default:
            return attempt.sent ? .unconfirmed(error.description) : Self.accessoryError(error)
        }
    }

    /// Makes the accessory identify itself by writing `true` to its Identify characteristic (type 14).
    /// - Throws: `.unreachable` while there is no connection, `.unknown` for an accessory this provider
    ///   does not have or one without Identify, `.status` when the accessory refuses.
    public func identify(_ accessory: AccessoryID) async throws(AccessoryError) {
        guard let client, let index else { throw .unreachable(disconnectReason) }
        guard accessory.serverID == AccessoryID(serverID: pairing.accessoryPairingID, aid: 0).serverID,
            let id = index.identify[accessory.aid]
        else { throw .unknown("accessory \(accessory) with an Identify characteristic") }
        let answers: [HAPCharacteristicID: HAPCharacteristicResult]
        do {
            answers = try await client.write([HAPCharacteristicWriteItem(id: id, value: .bool(true))])
        } catch {
            throw Self.accessoryError(error)
        }
        let status = answers[id]?.status ?? .resourceDoesNotExist
        guard status.isSuccess else { throw .status(status) }
        logger.info("asked \(accessory) to identify itself", ["accessory": accessory.description])
    }

    /// `client` (the live one, or the one a reconnect brought) and the index, and which addresses belong to this provider (with their HAP ids); the
    /// others get their failure in `results`.
    private func route(
        _ client: HAPClient?, _ addresses: [CharacteristicAddress],
        into results: inout [CharacteristicAddress: Result<CharacteristicValue?, AccessoryError>]
    ) -> (HAPClient?, AccessoryIndex?, [(address: CharacteristicAddress, id: HAPCharacteristicID)]) {
        guard let client, let index else {
            for address in addresses { results[address] = .failure(.unreachable(offlineDescription)) }
            return (nil, nil, [])
        }
        let serverID = AccessoryID(serverID: pairing.accessoryPairingID, aid: 0).serverID
        var known: [(address: CharacteristicAddress, id: HAPCharacteristicID)] = []
        for address in addresses {
            let id = HAPCharacteristicID(aid: address.accessory.aid, iid: address.iid)
            guard address.accessory.serverID == serverID, index.contains(id),
                index.accessoryID(id.aid) != nil
            else {
                results[address] = .failure(.unknown("characteristic \(address)"))
                continue
            }
            guard !known.contains(where: { $0.address == address }) else { continue }
            // The store hands this provider writes for its unreachable accessories (it connects on
            // demand); one its bridge cannot reach fails here, at once, as the store would.
            guard !bridged.isUnreachable(id.aid) else {
                results[address] = .failure(.unreachable(BridgedReachability.reason))
                continue
            }
            known.append((address, id))
        }
        return (client, index, known)
    }

    /// Why a read or write finds no session, for the user: since when, for how long, and the last error
    /// ("offline since 2026-05-01T12:00:00Z (42 s), last error: connection refused"); before any drop or
    /// failure, why there is none.
    var offlineDescription: String {
        guard let since = machine.offlineSince else { return disconnectReason }
        let offline = context.clock.now - since
        let wall = UTCTimestamp.string(Date(timeIntervalSinceNow: -offline.inSeconds), milliseconds: false)
        return "offline since \(wall) (\(Int(offline.inSeconds.rounded())) s), last error: \(disconnectReason)"
    }

    /// The store's error for a failed request: a time-out, the accessory's refusal, or the connection gone.
    static func accessoryError(_ error: HAPConnectionError) -> AccessoryError {
        switch error {
        case .requestTimedOut: return .timedOut
        case .notSent: return .unreachable(error.description)
        case .refused(let status, _): return .status(status)
        case .invalidResponse: return .failed(error.description)
        default: return .unreachable(error.description)
        }
    }
}

extension HAPAccessoryProvider: SnapshotProvider {
    /// A JPEG from the camera accessory with `POST /resource` (docs/hap-notes.md §4.9).
    /// - Throws: `.unreachable` while there is no connection, `.unknown` for an accessory of another
    ///   accessory server, `.status` when the accessory refuses, `.failed` for an answer that is no JPEG.
    public func snapshot(_ accessory: AccessoryID, width: Int, height: Int) async throws(AccessoryError) -> [UInt8] {
        guard let client else { throw .unreachable(disconnectReason) }
        guard accessory.serverID == AccessoryID(serverID: pairing.accessoryPairingID, aid: 0).serverID else {
            throw .unknown("accessory \(accessory)")
        }
        do {
            return try await client.snapshot(aid: accessory.aid, width: width, height: height)
        } catch {
            throw Self.accessoryError(error)
        }
    }

    /// A successful answer's value for the caller: the value (nil when none came), or an error when the
    /// accessory sent one its format cannot carry, which must not read as "no value" (logged too).
    private func answered(_ json: JSONValue?, for id: HAPCharacteristicID, _ index: AccessoryIndex) -> Result<
        CharacteristicValue?, AccessoryError
    > {
        switch index.decoded(json, for: id) {
        case .success(let value): return .success(value)
        case .failure(let mismatch):
            noteUnreadableValue(id, mismatch)
            return .failure(.failed("the accessory answered with a value its format cannot carry: \(mismatch)"))
        }
    }
}
