import HAP2MQTTTesting
import HomeModel
import JSON
import Logging
import Testing

@testable import HAPController

/// A controller connected and pair-verified to a scripted accessory.
struct ScriptedSession {
    let accessory: ScriptedAccessory
    let connection: HAPConnection
    let pairing: Pairing

    /// Connects, runs pair-verify; `afterM4` goes out encrypted in the same write as the M4 answer.
    static func start(afterM4: [UInt8] = [], logger: Logger = Logger(label: "hap")) async throws -> ScriptedSession {
        let accessory = try ScriptedAccessory()
        let controller = try ControllerIdentity.generate()
        let pairing = try await accessory.pair(controller)
        async let accepted: Void = accessory.accept()
        let connection = try await HAPConnection.connect(host: "127.0.0.1", port: accessory.port, logger: logger)
        await accepted
        async let answered: Void = accessory.answerPairVerify(afterM4: afterM4)
        try await connection.verify(controller: controller, pairing: pairing)
        try await answered
        return ScriptedSession(accessory: accessory, connection: connection, pairing: pairing)
    }

    func close() async {
        await connection.close()
        await accessory.close()
    }
}

@Suite("HAP connection against a scripted accessory")
struct HAPConnectionScriptedTests {
    @Test("after pair-verify the same connection is encrypted from the next byte, even in the M4 answer's read")
    func switchesToEncryption() async throws {
        let event = ScriptedAccessory.event(#"{"characteristics":[{"aid":1,"iid":9,"value":"1.1"}]}"#)
        let session = try await ScriptedSession.start(afterM4: event)
        #expect(await session.connection.isEncrypted)
        var events = session.connection.events.makeAsyncIterator()
        #expect(await events.next() == [HAPEventValue(id: HAPCharacteristicID(aid: 1, iid: 9), value: "1.1")])

        let answer = Task { try await session.connection.send(HAPRequests.accessories()) }
        let request = try await session.accessory.readRequest()
        #expect(request.line == "GET /accessories HTTP/1.1")
        #expect(request.headers.first == "Host: 127.0.0.1")
        try await session.accessory.send(ScriptedAccessory.response(json: #"{"accessories":[]}"#))
        #expect(try await answer.value.body == Array(#"{"accessories":[]}"#.utf8))
        await #expect(throws: HAPConnectionError.alreadyVerified) {
            try await session.connection.verify(controller: try ControllerIdentity.generate(), pairing: session.pairing)
        }
        await session.close()
    }

    @Test("one request at a time, and events before, inside and after a response never shift the answers")
    func eventsNeverShiftResponses() async throws {
        let session = try await ScriptedSession.start()
        let connection = session.connection
        let first = Task { try await connection.send(.get("/characteristics?id=1.1")) }
        let request1 = try await session.accessory.readRequest()
        let second = Task { try await connection.send(.get("/characteristics?id=1.2")) }
        #expect(!(await session.accessory.hasUnreadBytes()), "the second request waits for the first answer")

        let eventA = ScriptedAccessory.event(#"{"characteristics":[{"aid":2,"iid":9,"value":true}]}"#)
        let eventB = ScriptedAccessory.event(
            #"{"characteristics":[{"aid":2,"iid":10,"value":5},{"aid":2,"iid":10,"value":4}]}"#)
        let answer1 = ScriptedAccessory.response(json: #"{"characteristics":[{"aid":1,"iid":1,"value":1}]}"#)
        // One encrypted frame holding an event, the answer and another event, cut into three reads.
        try await session.accessory.send(eventA + answer1 + eventB, cuts: [7, eventA.count + 30])
        #expect(request1.line == "GET /characteristics?id=1.1 HTTP/1.1")
        #expect(try await first.value.body == Array(#"{"characteristics":[{"aid":1,"iid":1,"value":1}]}"#.utf8))

        let request2 = try await session.accessory.readRequest()
        #expect(request2.line == "GET /characteristics?id=1.2 HTTP/1.1")
        let answer2 = ScriptedAccessory.response(json: #"{"characteristics":[{"aid":1,"iid":2,"value":2}]}"#)
        // The answer in its own frames, then an event in a frame of its own in the same write.
        try await session.accessory.send(answer2)
        try await session.accessory.send(eventA)
        #expect(try await second.value.body == Array(#"{"characteristics":[{"aid":1,"iid":2,"value":2}]}"#.utf8))

        var events = connection.events.makeAsyncIterator()
        #expect(await events.next() == [HAPEventValue(id: HAPCharacteristicID(aid: 2, iid: 9), value: true)])
        #expect(
            await events.next() == [HAPEventValue(id: HAPCharacteristicID(aid: 2, iid: 10), value: 5)],
            "the newest of two values wins")
        #expect(await events.next() == [HAPEventValue(id: HAPCharacteristicID(aid: 2, iid: 9), value: true)])
        await session.close()
    }

    @Test("a flood of unreadable events is dropped with one log line a minute, and good events still come through")
    func unreadableEventsLoggedOnce() async throws {
        let log = LogCapture()
        let session = try await ScriptedSession.start(logger: log.logger(label: "hap"))
        var events = session.connection.events.makeAsyncIterator()
        let bad = ScriptedAccessory.event(#"{"characteristics":[{"aid":4,"iid":9,"value":NaN}]}"#)
        for _ in 0..<50 { try await session.accessory.send(bad) }
        try await session.accessory.send(
            ScriptedAccessory.event(#"{"characteristics":[{"aid":2,"iid":9,"value":true}]}"#))
        #expect(await events.next() == [HAPEventValue(id: HAPCharacteristicID(aid: 2, iid: 9), value: true)])
        #expect(log.records(.warning, containing: "ignored an unreadable event").count == 1, "\(log.lines)")
        await session.close()
    }

    @Test(
        "a request that must be answered by a deadline is not sent when its turn comes with less than a second left, and the connection goes on"
    )
    func answerByDeadline() async throws {
        let session = try await ScriptedSession.start()
        let connection = session.connection
        let first = Task { try await connection.send(HAPRequests.accessories()) }
        #expect(try await session.accessory.readRequest().line == "GET /accessories HTTP/1.1")
        // Less than a second to be answered, whether its turn comes behind the first request or after it.
        let answerBy = ContinuousClock.now + .milliseconds(900)
        let late = Task {
            try await connection.sendEncrypted(.get("/characteristics?id=1.2"), timeout: nil, answerBy: answerBy)
        }
        try await session.accessory.send(ScriptedAccessory.response(json: #"{"accessories":[]}"#))
        _ = try await first.value
        await #expect(
            throws: HAPConnectionError.notSent("too little of its time was left when the connection was free")
        ) {
            try await late.value
        }
        // Nothing of it went out: the next request is the next the accessory reads, on the same connection.
        let next = Task { try await connection.send(.get("/characteristics?id=1.3")) }
        #expect(try await session.accessory.readRequest().line == "GET /characteristics?id=1.3 HTTP/1.1")
        try await session.accessory.send(ScriptedAccessory.response(json: #"{"characteristics":[]}"#))
        _ = try await next.value
        #expect(await connection.closeReason == nil)
        await session.close()
    }

    @Test("a request without an answer times out, closes the connection and fails the queued ones as not sent")
    func requestTimeout() async throws {
        let session = try await ScriptedSession.start()
        let connection = session.connection
        let queued = Task {
            try await Task.sleep(for: .milliseconds(50))
            return try await connection.send(.get("/characteristics?id=1.2"))
        }
        let timedOut = HAPConnectionError.requestTimedOut(request: "GET /accessories", seconds: 0.3)
        let unanswered = Task { try await connection.send(HAPRequests.accessories(), timeout: .milliseconds(300)) }
        #expect(try await session.accessory.readRequest().line == "GET /accessories HTTP/1.1")
        await #expect(throws: timedOut) { try await unanswered.value }
        // The queued request never went out: it must not read as one the accessory did not answer.
        let notSent = HAPConnectionError.notSent(endedBy: timedOut)
        await #expect(throws: notSent) { try await queued.value }
        #expect(await connection.waitUntilClosed() == timedOut)
        #expect(await session.accessory.sawClose(), "the accessory sees the connection close")
        await #expect(throws: notSent) { try await connection.send(HAPRequests.accessories()) }
        #expect(
            timedOut.description
                == "the accessory did not answer GET /accessories within 0.3 s; the connection was closed")
        await session.close()
    }

    @Test(
        "a request that times out resets its connection, so that nothing the kernel still holds reaches the accessory")
    func timeoutResets() async throws {
        let session = try await ScriptedSession.start()
        let unanswered = Task {
            try await session.connection.send(HAPRequests.accessories(), timeout: .milliseconds(300))
        }
        #expect(try await session.accessory.readRequest().line == "GET /accessories HTTP/1.1")
        _ = try? await unanswered.value
        #expect(await session.accessory.sawReset(), "a reset, which drops unsent bytes, not an orderly close")
        await session.close()
    }

    @Test("a connection closed on purpose ends in order, with no reset")
    func closeIsOrderly() async throws {
        let session = try await ScriptedSession.start()
        await session.connection.close()
        #expect(!(await session.accessory.sawReset()))
        #expect(await session.accessory.sawClose())
        await session.close()
    }

    @Test("a frame that fails authentication closes the connection")
    func brokenFrame() async throws {
        let session = try await ScriptedSession.start()
        let answer = Task { try await session.connection.send(HAPRequests.accessories()) }
        _ = try await session.accessory.readRequest()
        await session.accessory.write([4, 0, 1, 2, 3, 4] + Array(repeating: 0, count: 16))
        let broken = HAPConnectionError.sessionBroken(.authenticationFailed(frame: 0))
        await #expect(throws: broken) { try await answer.value }
        #expect(await session.connection.waitUntilClosed() == broken)
        var events = session.connection.events.makeAsyncIterator()
        #expect(await events.next() == nil, "the event stream finished")
        await session.close()
    }

    @Test("the accessory closing mid-request fails the request at once and reports the close")
    func peerCloses() async throws {
        let session = try await ScriptedSession.start()
        let answer = Task { try await session.connection.send(HAPRequests.accessories()) }
        _ = try await session.accessory.readRequest()
        await session.accessory.close()
        await #expect(throws: HAPConnectionError.connectionLost(.closedByPeer)) { try await answer.value }
        #expect(await session.connection.waitUntilClosed() == .connectionLost(.closedByPeer))
        #expect(await session.connection.closeReason == .connectionLost(.closedByPeer))
        await session.close()
    }

    @Test("a response nobody asked for is a protocol violation that closes the connection")
    func unsolicitedResponse() async throws {
        let session = try await ScriptedSession.start()
        try await session.accessory.send(ScriptedAccessory.response(status: 204, body: []))
        #expect(await session.connection.waitUntilClosed() == .protocolViolation("an HTTP 204 response to no request"))
        await session.close()
    }

    @Test("reads ask for meta, perms, type and ev and return the extra fields; writes ask for write responses")
    func readFlagsAndWriteResponses() async throws {
        let session = try await ScriptedSession.start()
        let client = HAPClient(connection: session.connection, pairing: session.pairing)
        let id = HAPCharacteristicID(aid: 1, iid: 10)

        let read = Task { try await client.read([id], meta: true, perms: true, type: true, events: true) }
        #expect(
            try await session.accessory.readRequest().line
                == "GET /characteristics?id=1.10&meta=1&perms=1&type=1&ev=1 HTTP/1.1")
        try await session.accessory.send(
            ScriptedAccessory.response(
                json:
                    #"{"characteristics":[{"aid":1,"iid":10,"value":50,"format":"uint8","unit":"percentage","perms":["pr","pw"],"type":"8","ev":false}]}"#
            ))
        let item = try #require(try await read.value[id]?.item)
        #expect(item["format"] == "uint8" && item["unit"] == "percentage" && item["perms"] == ["pr", "pw"])
        #expect(item["type"] == "8" && item["ev"] == false)

        let written = Task {
            try await client.write([HAPCharacteristicWriteItem(id: id, value: 60, wantsResponse: true)])
        }
        let put = try await session.accessory.readRequest()
        #expect(put.line == "PUT /characteristics HTTP/1.1")
        #expect(put.body == Array(#"{"characteristics":[{"aid":1,"iid":10,"value":60,"r":true}]}"#.utf8))
        try await session.accessory.send(
            ScriptedAccessory.response(
                status: 207, json: #"{"characteristics":[{"aid":1,"iid":10,"status":0,"value":61}]}"#))
        let result = try #require(try await written.value[id])
        #expect(result.status == .success && result.value == 61)
        await session.close()
    }

    @Test("a refused timed-write prepare writes nothing and gives every item the accessory's status")
    func refusedPrepare() async throws {
        let session = try await ScriptedSession.start()
        let client = HAPClient(connection: session.connection, pairing: session.pairing)
        let id = HAPCharacteristicID(aid: 1, iid: 11)
        let written = Task {
            try await client.write(
                [HAPCharacteristicWriteItem(id: id, value: 1)], timed: true, ttl: .milliseconds(2500))
        }
        let prepare = try await session.accessory.readRequest()
        #expect(prepare.line == "PUT /prepare HTTP/1.1")
        let body = try JSONValue(parsing: prepare.body)
        #expect(body["ttl"] == 2500 && (body["pid"]?.uint64Value ?? 0) > 0)
        try await session.accessory.send(ScriptedAccessory.response(json: #"{"status":-70412}"#))
        #expect(try await written.value[id]?.status == .notAllowedInCurrentState)
        #expect(!(await session.accessory.hasUnreadBytes()), "no write after a refused prepare")
        await session.close()
    }

    @Test("requests of a paired controller need pair-verify first")
    func needsVerify() async throws {
        let accessory = try ScriptedAccessory()
        let pairing = try await accessory.pair(try ControllerIdentity.generate())
        async let accepted: Void = accessory.accept()
        let connection = try await HAPConnection.connect(
            host: "127.0.0.1", port: accessory.port, logger: Logger(label: "hap"))
        await accepted
        let client = HAPClient(connection: connection, pairing: pairing)
        await #expect(throws: HAPConnectionError.notVerified) { try await client.accessories() }
        await #expect(throws: HAPConnectionError.notVerified) { try await client.listPairings() }
        await connection.close()
        #expect(await connection.waitUntilClosed() == .closed)
        await accessory.close()
    }

    @Test("POST /identify of an unpaired accessory: 204 is success, an HTTP error carries its HAP status")
    func identifyUnpaired() async throws {
        let accessory = try ScriptedAccessory()
        async let accepted: Void = accessory.accept()
        let connection = try await HAPConnection.connect(
            host: "127.0.0.1", port: accessory.port, logger: Logger(label: "hap"))
        await accepted
        let first = Task { try await connection.identifyUnpaired() }
        #expect(try await accessory.readRequest().line == "POST /identify HTTP/1.1")
        try await accessory.send(ScriptedAccessory.response(status: 204, body: []))
        try await first.value
        let second = Task { try await connection.identifyUnpaired() }
        _ = try await accessory.readRequest()
        try await accessory.send(ScriptedAccessory.response(status: 400, json: #"{"status":-70401}"#))
        await #expect(throws: HAPConnectionError.refused(.insufficientPrivileges, request: "POST /identify")) {
            try await second.value
        }
        await connection.close()
        await accessory.close()
    }

    @Test("no log line, down to trace, shows the session keys")
    func logsKeepSessionKeys() async throws {
        let capture = LogCapture()
        let session = try await ScriptedSession.start(logger: capture.logger(label: "hap"))
        let keys = try #require(await session.accessory.sessionKeys())
        let answer = Task { try await session.connection.send(HAPRequests.accessories()) }
        _ = try await session.accessory.readRequest()
        await session.accessory.write([1, 0, 0] + Array(repeating: 0, count: 16))
        _ = await answer.result
        await session.close()
        #expect(!capture.lines.isEmpty)
        for key in [keys.controllerToAccessory, keys.accessoryToController] {
            for text in [
                Hex.encode(key), Hex.encode(key).uppercased(), Base64.encode(key), Base64.encode(Array(key.prefix(12))),
            ] {
                #expect(!capture.lines.contains { $0.contains(text) })
            }
        }
    }
}
