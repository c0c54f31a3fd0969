import Foundation
import HAP2MQTTTesting
import HomeModel
import SystemSupport
import Testing
import Web

/// The page's files and API over real HTTP: the list, one accessory, writes through the store as a `/set`
/// makes them, the bridge requests, and the live event stream.
@Suite("Web page API")
struct WebPageAPITests {
    @Test("the page and its script and style are served from the binary, every other path is 404")
    func files() async throws {
        try await withWebPageHarness { page in
            let index = try await page.request("GET", "/")
            #expect(index.status == 200)
            #expect(index.headers["content-type"] == "text/html; charset=utf-8")
            #expect(index.text.contains(#"<script src="/app.js" defer></script>"#))
            #expect(
                try await page.request("GET", "/app.js").headers["content-type"] == "text/javascript; charset=utf-8")
            #expect(try await page.request("GET", "/style.css").status == 200)
            for path in ["/index.htm", "/favicon.ico", "/api/nothing", "/web/app.js"] {
                let missing = try await page.request("GET", path)
                #expect(missing.status == 404, "\(path)")
            }
            #expect(index.headers["x-frame-options"] == "DENY")
        }
    }

    @Test("paths that climb out of the page reach nothing: 404, and no file of the machine is read")
    func traversal() async throws {
        try await withWebPageHarness { page in
            for path in [
                "/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/app.js/../../../etc/passwd",
                "/..%2f..%2fetc%2fpasswd", "//etc/passwd", "/api/../../etc/passwd",
            ] {
                let answer = try await page.request("GET", path)
                #expect([400, 404].contains(answer.status), "\(path): \(answer.status)")
                #expect(!answer.text.contains("root:"), "\(path)")
            }
        }
    }

    @Test("the accessory list has each accessory's slug, room, availability and last event")
    func list() async throws {
        try await withWebPageHarness { page in
            let list = try #require(try await page.request("GET", "/api/accessories").jsonArray)
            #expect(list.map { $0["slug"] as? String } == ["kitchen_lamp", "front_door", "hall_thermostat"])
            let lamp = try #require(list.first)
            #expect(lamp["reachable"] as? Bool == true)
            #expect(lamp["reason"] is NSNull)
            #expect(lamp["last_event"] is NSNull)
            #expect(lamp["id"] as? String == "00:00:00:00:00:01/2")
        }
    }

    @Test("one accessory has each characteristic's format, range and value; an unknown one is 404")
    func accessory() async throws {
        try await withWebPageHarness { page in
            let lamp = try #require(try await page.request("GET", "/api/accessories/kitchen_lamp").json)
            let services = try #require(lamp["services"] as? [[String: Any]])
            let bulb = try #require(services.first { $0["slug"] as? String == "lightbulb" })
            let characteristics = try #require(bulb["characteristics"] as? [[String: Any]])
            let brightness = try #require(characteristics.first { $0["slug"] as? String == "brightness" })
            #expect(brightness["min"] as? Double == 0)
            #expect(brightness["max"] as? Double == 100)
            let values = try #require(lamp["values"] as? [String: Any])
            let on = page.address(aid: 2, .Characteristic.on)
            #expect(values[String(on.iid)] as? String == "false")
            let missing = try await page.request("GET", "/api/accessories/garage")
            #expect(missing.status == 404)
            #expect(missing.json?["error"] as? String == "no accessory 'garage'; see /api/accessories")
        }
    }

    @Test("a write from the page goes through the store to the accessory and answers with the confirmed value")
    func write() async throws {
        try await withWebPageHarness { page in
            let on = page.address(aid: 2, .Characteristic.on)
            let answer = try await page.post(
                "/api/accessories/kitchen_lamp/characteristics/\(on.iid)", #"{"value":true}"#)
            #expect(answer.status == 200)
            #expect(answer.text == #"{"status":"ok","value":"true"}"#)
            #expect(page.provider.writes.last?.first?.value == .bool(true))
            #expect(page.provider.value(at: on) == .bool(true))
            // The same write is published on MQTT as every confirmed value is.
            try await page.mqtt.waitFor(topic: "hap2mqtt/kitchen_lamp/lightbulb/on") { $0.payloadString == "true" }
        }
    }

    @Test("a value off the characteristic's range is refused with the store's error and nothing is written")
    func outOfRange() async throws {
        try await withWebPageHarness { page in
            let brightness = page.address(aid: 2, .Characteristic.brightness)
            let writes = page.provider.writes.count
            let answer = try await page.post(
                "/api/accessories/kitchen_lamp/characteristics/\(brightness.iid)", #"{"value":150}"#)
            #expect(answer.status == 422)
            let error = try #require(answer.json?["error"] as? String)
            #expect(error.contains("150"), "\(error)")
            #expect(error.contains("100"), "\(error)")
            #expect(page.provider.writes.count == writes)
        }
    }

    @Test("bad requests get a clear answer and change nothing")
    func badRequests() async throws {
        try await withWebPageHarness { page in
            let on = page.address(aid: 2, .Characteristic.on)
            let path = "/api/accessories/kitchen_lamp/characteristics/\(on.iid)"
            let malformed = try await page.post(path, #"{"value":tru"#)
            #expect(malformed.status == 400)
            #expect(malformed.json?["error"] as? String == "the body must be a JSON object")
            let noValue = try await page.post(path, #"{"velue":true}"#)
            #expect(noValue.status == 400)
            let form = try await page.request(
                "POST", path, headers: ["Content-Type": "application/x-www-form-urlencoded"], body: "value=true")
            #expect(form.status == 415)
            for type in ["application/jsonx", "application/json-seq", "text/plain; application/json"] {
                let other = try await page.request(
                    "POST", path, headers: ["Content-Type": type], body: #"{"value":true}"#)
                #expect(other.status == 415, "\(type)")
            }
            let withCharset = try await page.request(
                "POST", path, headers: ["Content-Type": "Application/JSON ; charset=utf-8"], body: #"{"value":false}"#)
            #expect(withCharset.status == 200, "\(withCharset.text)")
            let unknownIID = try await page.post(
                "/api/accessories/kitchen_lamp/characteristics/9999", #"{"value":true}"#)
            #expect(unknownIID.status == 404)
            let wrongMethod = try await page.request("DELETE", "/")
            #expect(wrongMethod.status == 405)
            #expect(page.provider.writes.count == 1, "only the one with a charset: \(page.provider.writes)")
        }
    }

    @Test("a body over the limit is answered 413 before it is read, also when sent in chunks")
    func tooLarge() async throws {
        try await withWebPageHarness(limits: HTTPLimits(maxBody: 1024)) { page in
            let on = page.address(aid: 2, .Characteristic.on)
            let path = "/api/accessories/kitchen_lamp/characteristics/\(on.iid)"
            let big = #"{"value":""# + String(repeating: "x", count: 5000) + #""}"#
            let announced = try await page.post(path, big)
            #expect(announced.status == 413)
            #expect(announced.json?["error"] as? String == "the request body is larger than 1024 bytes")

            var chunked =
                Array("\(String(5000 + 12, radix: 16))\r\n".utf8) + Array(big.utf8) + Array("\r\n0\r\n\r\n".utf8)
            chunked = Array(chunked)
            let streamed = try await HTTPTestClient.request(
                port: page.port, "POST", path,
                headers: ["Content-Type": "application/json", "Transfer-Encoding": "chunked", "Content-Length": ""],
                body: chunked)
            #expect(streamed.status == 413)
            #expect(page.provider.writes.isEmpty)
        }
    }

    @Test(
        "bridge requests from the page are the MQTT bridge API's: identify works, an unknown one is named with those that exist, a rename reloads the list"
    )
    func bridge() async throws {
        try await withWebPageHarness { page in
            let stream = try await EventStreamReader(port: page.port)
            defer { stream.close() }
            let identified = try await page.post("/api/bridge/request/identify", #"{"accessory":"kitchen_lamp"}"#)
            #expect(identified.status == 200)
            #expect(identified.text == #"{"status":"ok","data":{"accessory":"kitchen_lamp"}}"#)
            #expect(page.provider.identified == [page.id(2)])
            let unknown = try await page.post("/api/bridge/request/reboot", "{}")
            #expect(unknown.status == 422)
            #expect(
                unknown.json?["error"] as? String
                    == "unknown request 'reboot'; the requests are identify, rename, health_check, homeassistant_migrate, add_pairing, backup, list_pairings, options, pair, refresh, remove_pairing, unpair, group_add, group_list, group_remove, group_rename, group_set, scene_list, scene_recall, scene_remove, scene_rename, scene_store"
            )
            let renamed = try await page.post(
                "/api/bridge/request/rename", #"{"accessory":"kitchen_lamp","to":"pantry_lamp"}"#)
            #expect(renamed.status == 200)
            try await page.mqtt.waitFor(topic: "hap2mqtt/pantry_lamp/availability")
            #expect(try await stream.next("accessories") == "{}", "the page's links name the old slug")
            #expect(try await page.request("GET", "/api/accessories/pantry_lamp").status == 200)
        }
    }

    @Test("the event stream carries a change made on the accessory's side and availability with its reason")
    func events() async throws {
        try await withWebPageHarness { page in
            let stream = try await EventStreamReader(port: page.port)
            defer { stream.close() }
            let on = page.address(aid: 2, .Characteristic.on)
            page.provider.changeValue(on, to: .bool(true))
            let value = try await stream.next("value")
            #expect(value == #"{"accessory":"00:00:00:00:00:01/2","iid":\#(on.iid),"value":"true"}"#)
            let list = try #require(try await page.request("GET", "/api/accessories").jsonArray)
            #expect(list.first?["last_event"] is String)
        }
    }

    @Test(
        "an accessory its options exclude leaves the event stream: the page is told to reload its list, its values stop, and come back when it is included again"
    )
    func exclusion() async throws {
        try await withWebPageHarness { page in
            let stream = try await EventStreamReader(port: page.port)
            defer { stream.close() }
            let lamp = page.address(aid: 2, .Characteristic.on)
            let door = page.address(aid: 3, HAPType("1E")!)  // LockTargetState
            let excluded = try await page.post(
                "/api/bridge/request/options", #"{"accessory":"kitchen_lamp","options":{"exclude":true}}"#)
            #expect(excluded.status == 200, "\(excluded.text)")
            #expect(try await stream.next("accessories") == "{}")
            let list = try #require(try await page.request("GET", "/api/accessories").jsonArray)
            #expect(!list.contains { $0["id"] as? String == page.id(2).description })
            // The lamp's change comes first: were it shown, it would be the first value on the stream.
            page.provider.changeValue(lamp, to: .bool(true))
            page.provider.changeValue(door, to: .int(1))
            let value = try await stream.next("value")
            #expect(value == #"{"accessory":"00:00:00:00:00:01/3","iid":\#(door.iid),"value":"1"}"#)
            let included = try await page.post(
                "/api/bridge/request/options", #"{"accessory":"\#(page.id(2))","options":{"exclude":false}}"#)
            #expect(included.status == 200, "\(included.text)")
            #expect(try await stream.next("accessories") == "{}")
            page.provider.changeValue(lamp, to: .bool(false))
            #expect(
                try await stream.next("value")
                    == #"{"accessory":"00:00:00:00:00:01/2","iid":\#(lamp.iid),"value":"false"}"#)
        }
    }

    @Test("event streams are bounded: one more than the limit is answered 503, and the page still answers")
    func streamLimit() async throws {
        try await withWebPageHarness(limits: HTTPLimits(eventStreams: 2)) { page in
            let first = try await EventStreamReader(port: page.port)
            let second = try await EventStreamReader(port: page.port)
            defer {
                first.close()
                second.close()
            }
            let third = try await page.request("GET", "/api/events")
            #expect(third.status == 503)
            #expect(try await page.request("GET", "/api/accessories").status == 200)
        }
    }

    @Test("many connections at once are bounded and the gateway keeps working; the page answers again after")
    func connectionLimit() async throws {
        try await withWebPageHarness(limits: HTTPLimits(connections: 4)) { page in
            var held: [Int32] = []
            for _ in 0..<20 {
                if let fd = await LoopbackSocket.connect(port: page.port) { held.append(fd) }
            }
            // The gateway's own work goes on: a /set over MQTT reaches the accessory.
            let on = page.address(aid: 2, .Characteristic.on)
            try page.mqtt.deliver("hap2mqtt/kitchen_lamp/lightbulb/on/set", "true")
            try await eventually("the MQTT write to reach the lamp") { page.provider.value(at: on) == .bool(true) }
            #expect(held.count == 20)
            for fd in held { LoopbackSocket.close(fd) }
            try await eventually("the page to answer again") {
                (try? await page.request("GET", "/api/accessories").status) == 200
            }
        }
    }

    @Test("connections that send nothing are closed after the idle time-out, so they cannot hold the page")
    func idleConnectionsClosed() async throws {
        try await withWebPageHarness(limits: HTTPLimits(connections: 2, idleTimeoutSeconds: 1)) { page in
            var held: [Int32] = []
            for _ in 0..<2 {
                if let fd = await LoopbackSocket.connect(port: page.port) { held.append(fd) }
            }
            defer { for fd in held { LoopbackSocket.close(fd) } }
            #expect(held.count == 2)
            try await eventually("the page to answer while the idle connections are still open on our side") {
                (try? await page.request("GET", "/api/accessories").status) == 200
            }
        }
    }
}

/// Reads `text/event-stream` events from `/api/events`.
final class EventStreamReader: Sendable {
    let fd: Int32

    init(port: UInt16, headers: String = "") async throws {
        guard let fd = await LoopbackSocket.connect(port: port) else {
            throw TestSupportError.timedOut("cannot connect")
        }
        self.fd = fd
        await LoopbackSocket.write(
            fd, Array("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(headers)\r\n".utf8))
        let status = await LoopbackSocket.readLine(fd)
        guard status?.hasPrefix("HTTP/1.1 200") == true else {
            throw TestSupportError.timedOut("event stream: \(status ?? "closed")")
        }
    }

    /// The data of the next event called `name` (chunked framing lines are skipped).
    func next(_ name: String) async throws -> String {
        let data = await withDeadline(.seconds(30)) { [fd] () async -> String? in
            var current: String?
            while let line = await LoopbackSocket.readLine(fd) {
                let text = line.hasSuffix("\r") ? String(line.dropLast()) : line
                if text.hasPrefix("event: ") { current = String(text.dropFirst(7)) }
                if text.hasPrefix("data: "), current == name { return String(text.dropFirst(6)) }
            }
            return nil
        }
        guard let data = data ?? nil else {
            throw TestSupportError.timedOut("no '\(name)' event on the stream within 30 s")
        }
        return data
    }

    func close() { LoopbackSocket.close(fd) }
}
