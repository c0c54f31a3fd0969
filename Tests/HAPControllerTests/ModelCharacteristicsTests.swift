import HAPController
import HomeModel
import JSON
import Testing

@Suite("GET and PUT /characteristics")
struct ModelCharacteristicsTests {
    let light = HAPCharacteristicID(aid: 2, iid: 10)
    let lock = HAPCharacteristicID(aid: 5, iid: 10)
    let on = HAPCharacteristicID(aid: 2, iid: 9)

    func body(_ text: String) -> [UInt8] { Array(text.utf8) }
    func text(_ request: HTTPRequest) -> String { String(decoding: request.body, as: UTF8.self) }

    @Test("the read query lists ids in order and adds only the flags asked for")
    func readQuery() {
        #expect(HAPRequests.readCharacteristics([light, on]).path == "/characteristics?id=2.10,2.9")
        let all = HAPRequests.readCharacteristics([light], meta: true, perms: true, type: true, events: true)
        #expect(all.path == "/characteristics?id=2.10&meta=1&perms=1&type=1&ev=1")
        #expect(all.method == .get)
        #expect(HAPRequests.readCharacteristics([light], type: true).path == "/characteristics?id=2.10&type=1")
    }

    @Test("a 200 read gives each value with success")
    func read200() throws {
        // HAP-python's answer to the fixture read, captured with aiohomekit.
        let results = try HAPCharacteristicResult.parse(
            httpStatus: 200,
            body: body(
                #"{"characteristics":[{"aid":2,"iid":10,"value":0},{"aid":2,"iid":11,"value":0},{"aid":4,"iid":9,"value":21.5}]}"#
            ),
            requested: [
                light, HAPCharacteristicID(aid: 2, iid: 11), HAPCharacteristicID(aid: 4, iid: 9),
                HAPCharacteristicID(aid: 99, iid: 1),
            ])
        #expect(results[light]?.status == .success)
        #expect(try results[light]?.value(format: .int) == .int(0))
        #expect(try results[HAPCharacteristicID(aid: 2, iid: 11)]?.value(format: .float) == .float(0))
        #expect(try results[HAPCharacteristicID(aid: 4, iid: 9)]?.value(format: .float) == .float(21.5))
        #expect(
            results[HAPCharacteristicID(aid: 99, iid: 1)]?.status == .resourceDoesNotExist,
            "HAP-python leaves unknown aids out")
    }

    @Test("a 207 read gives every item its own status, positive codes made negative, and keeps meta fields")
    func read207() throws {
        let results = try HAPCharacteristicResult.parse(
            httpStatus: 207,
            body: body(
                #"{"characteristics":[{"aid":2,"iid":10,"status":0,"value":55,"format":"int","unit":"percentage","ev":true},{"aid":5,"iid":10,"status":-70402},{"aid":2,"iid":9,"status":70405,"value":null}]}"#
            ),
            requested: [light, lock, on])
        #expect(results[light]?.status == .success)
        #expect(results[light]?.value == .int(55))
        #expect(results[light]?.item["unit"] == "percentage")
        #expect(results[light]?.item["ev"] == true)
        #expect(results[lock]?.status == .serviceCommunicationFailure)
        #expect(results[lock]?.value == nil)
        #expect(results[on]?.status == .writeOnlyCharacteristic)
        #expect(results[on]?.value == nil)
    }

    @Test("a top-level status answers for every requested characteristic")
    func topLevelStatus() throws {
        let unreachable = try HAPCharacteristicResult.parse(
            httpStatus: 200, body: body(#"{"status":-70402}"#), requested: [light, lock])
        #expect(unreachable.values.map(\.status) == [.serviceCommunicationFailure, .serviceCommunicationFailure])
        let positive = try HAPCharacteristicResult.parse(
            httpStatus: 400, body: body(#"{"status":70410}"#), requested: [light])
        #expect(positive[light]?.status == .invalidValueInRequest)
        let denied = try HAPCharacteristicResult.parse(
            httpStatus: 401, body: body(#"{"status":-70401}"#), requested: [light])
        #expect(denied[light]?.status == .insufficientPrivileges)
    }

    @Test("204 means every write succeeded")
    func write204() throws {
        let results = try HAPCharacteristicResult.parse(httpStatus: 204, body: [], requested: [light, on])
        #expect(results.count == 2)
        #expect(results.values.allSatisfy { $0.status == .success && $0.value == nil })
    }

    @Test("a 207 write answer gives the refused write its status and a write response its value")
    func write207() throws {
        // HAP-python's answer when the fixture refuses the lock write, captured with aiohomekit.
        let captured = try HAPCharacteristicResult.parse(
            httpStatus: 207,
            body: body(#"{"characteristics":[{"status":-70410,"aid":5,"iid":10},{"status":0,"aid":2,"iid":9}]}"#),
            requested: [lock, on])
        #expect(captured[lock]?.status == .invalidValueInRequest)
        #expect(captured[on]?.status == .success)
        let withResponse = try HAPCharacteristicResult.parse(
            httpStatus: 207, body: body(#"{"characteristics":[{"aid":2,"iid":10,"status":0,"value":"AQID"}]}"#),
            requested: [light])
        #expect(try withResponse[light]?.value(format: .tlv8) == .data([1, 2, 3]))
    }

    @Test("error statuses without a HAP status, and broken 2xx bodies, are typed errors")
    func errors() {
        #expect(throws: HAPModelError.httpStatus(470)) {
            try HAPCharacteristicResult.parse(httpStatus: 470, body: [], requested: [light])
        }
        #expect(throws: HAPModelError.httpStatus(503)) {
            try HAPCharacteristicResult.parse(httpStatus: 503, body: body("busy"), requested: [light])
        }
        #expect(throws: HAPModelError.httpStatus(500)) {
            try HAPCharacteristicResult.parse(httpStatus: 500, body: body(#"{"status":0}"#), requested: [light])
        }
        #expect(throws: HAPModelError.invalidJSON(JSONError(.unexpectedEnd, at: 1))) {
            try HAPCharacteristicResult.parse(httpStatus: 207, body: body("{"), requested: [light])
        }
        #expect(throws: HAPModelError.unexpectedBody("expected a \"characteristics\" array or a \"status\"")) {
            try HAPCharacteristicResult.parse(httpStatus: 200, body: body("{}"), requested: [light])
        }
        #expect(
            HAPModelError.httpStatus(470).description
                == "the accessory answered HTTP 470 (connection authorization required: pair-verify first)")
    }

    @Test(
        "a write or read answer that does not say success never reads as one: a status that is no number, an error status without one"
    )
    func neverSuccessByDefault() throws {
        #expect(throws: HAPModelError.unexpectedBody(#"the status of 2.10 is not a number: "-70402""#)) {
            try HAPCharacteristicResult.parse(
                httpStatus: 207, body: body(#"{"characteristics":[{"aid":2,"iid":10,"status":"-70402"}]}"#),
                requested: [light])
        }
        #expect(throws: HAPModelError.unexpectedBody("the status of 2.10 is not a number: true")) {
            try HAPCharacteristicResult.parse(
                httpStatus: 207, body: body(#"{"characteristics":[{"aid":2,"iid":10,"status":true}]}"#),
                requested: [light])
        }
        #expect(throws: HAPModelError.httpStatus(500)) {
            try HAPCharacteristicResult.parse(
                httpStatus: 500, body: body(#"{"characteristics":[{"aid":2,"iid":10}]}"#), requested: [light])
        }
        let withBodyStatus = try HAPCharacteristicResult.parse(
            httpStatus: 500, body: body(#"{"status":-70402,"characteristics":[{"aid":2,"iid":10}]}"#),
            requested: [light])
        #expect(withBodyStatus[light]?.status == .serviceCommunicationFailure)
        // A 2xx item without a status is a success, as HAP-python's 200 reads are.
        let read = try HAPCharacteristicResult.parse(
            httpStatus: 200, body: body(#"{"characteristics":[{"aid":2,"iid":10,"value":5}]}"#), requested: [light])
        #expect(read[light]?.status == .success)
    }

    @Test("write bodies are compact, with r where asked and pid for timed writes")
    func writeBodies() throws {
        let plain = HAPRequests.writeCharacteristics([
            HAPCharacteristicWriteItem(id: on, value: true),
            HAPCharacteristicWriteItem(id: light, value: 50, wantsResponse: true),
        ])
        #expect(plain.method == .put)
        #expect(plain.path == "/characteristics")
        #expect(plain.contentType == "application/hap+json")
        #expect(
            text(plain)
                == #"{"characteristics":[{"aid":2,"iid":9,"value":true},{"aid":2,"iid":10,"value":50,"r":true}]}"#)
        let timed = HAPRequests.writeCharacteristics(
            [try HAPCharacteristicWriteItem(id: lock, value: .int(1), format: .uint8)], pid: UInt64.max)
        #expect(text(timed) == #"{"characteristics":[{"aid":5,"iid":10,"value":1}],"pid":18446744073709551615}"#)
        let prepare = HAPRequests.prepare(ttlMilliseconds: 10_000, pid: 12_345_678)
        #expect(prepare.path == "/prepare")
        #expect(text(prepare) == #"{"ttl":10000,"pid":12345678}"#)
    }

    @Test("subscriptions go out as one compact request per aid, in aid order")
    func subscriptions() {
        let requests = HAPRequests.subscribe(
            [HAPCharacteristicID(aid: 5, iid: 9), light, on, HAPCharacteristicID(aid: 5, iid: 10)], enable: true)
        #expect(
            requests.map(text) == [
                #"{"characteristics":[{"aid":2,"iid":10,"ev":true},{"aid":2,"iid":9,"ev":true}]}"#,
                #"{"characteristics":[{"aid":5,"iid":9,"ev":true},{"aid":5,"iid":10,"ev":true}]}"#,
            ])
        #expect(
            text(HAPRequests.subscribe([light], enable: false)[0])
                == #"{"characteristics":[{"aid":2,"iid":10,"ev":false}]}"#)
        #expect(HAPRequests.subscribe([], enable: true).isEmpty)
    }

    @Test("the prepare answer and other bare statuses are read")
    func prepareStatus() throws {
        #expect(try HAPCharacteristicResult.status(httpStatus: 200, body: body(#"{"status":0}"#)) == .success)
        #expect(
            try HAPCharacteristicResult.status(httpStatus: 200, body: body(#"{"status":-70410}"#))
                == .invalidValueInRequest)
        #expect(try HAPCharacteristicResult.status(httpStatus: 204, body: []) == .success)
        #expect(
            try HAPCharacteristicResult.status(httpStatus: 400, body: body(#"{"status":-70401}"#))
                == .insufficientPrivileges)
        #expect(throws: HAPModelError.httpStatus(404)) { try HAPCharacteristicResult.status(httpStatus: 404, body: []) }
    }

    @Test("other requests: /accessories and an unpaired identify")
    func otherRequests() {
        #expect(
            String(decoding: HAPRequests.accessories().encoded(host: "127.0.0.1"), as: UTF8.self)
                == "GET /accessories HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(
            String(decoding: HAPRequests.identifyUnpaired().encoded(host: "127.0.0.1"), as: UTF8.self)
                == "POST /identify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n")
    }

    @Test("characteristic ids read and print as aid.iid")
    func ids() {
        #expect(HAPCharacteristicID("1.10") == HAPCharacteristicID(aid: 1, iid: 10))
        #expect(HAPCharacteristicID("1.10.3") == nil)
        #expect(HAPCharacteristicID("x.1") == nil)
        #expect(HAPCharacteristicID(aid: 3, iid: 7).description == "3.7")
    }
}

@Suite("EVENT bodies")
struct ModelEventTests {
    @Test("an event gives its values; the newest of repeated characteristics wins and order is oldest first")
    func newestWins() throws {
        // HAP-NodeJS sends a coalesced event newest first (PR #964).
        let body =
            #"{"characteristics":[{"aid":2,"iid":10,"value":30},{"aid":3,"iid":9,"value":true},{"aid":2,"iid":10,"value":20},{"aid":2,"iid":10,"value":10}]}"#
        let values = try HAPEventValue.parse(eventBody: Array(body.utf8))
        #expect(
            values == [
                HAPEventValue(id: HAPCharacteristicID(aid: 3, iid: 9), value: true),
                HAPEventValue(id: HAPCharacteristicID(aid: 2, iid: 10), value: 30),
            ])
    }

    @Test("the event HAP-python sent through the fixture reads as one value; null values and broken items are handled")
    func fixtureEvent() throws {
        #expect(
            try HAPEventValue.parse(eventBody: Array(#"{"characteristics":[{"aid":2,"iid":10,"value":42}]}"#.utf8)) == [
                HAPEventValue(id: HAPCharacteristicID(aid: 2, iid: 10), value: 42)
            ])
        let odd = #"{"characteristics":[{"aid":7,"iid":9,"value":null},{"iid":1,"value":1},{"aid":1,"iid":2},"x",]}"#
        #expect(
            try HAPEventValue.parse(eventBody: Array(odd.utf8)) == [
                HAPEventValue(id: HAPCharacteristicID(aid: 7, iid: 9), value: nil)
            ])
        #expect(throws: HAPModelError.unexpectedBody("an event needs a \"characteristics\" array")) {
            try HAPEventValue.parse(eventBody: Array("{}".utf8))
        }
    }
}
