import Foundation
import HAP2MQTTTesting
import HomeStore
import Testing
import Web

/// The page's management over real HTTP: pair, unpair and refresh run run's one `Management` as the MQTT
/// bridge API does (the same reading of the request, the same errors), the accessories seen on the
/// network live, health; and bad input is answered with a clear line and changes nothing.
@Suite("Web page management")
struct WebPageManagementTests {
    static let code = "031-45-154"

    @Test("pairing from the page runs Management's pair; the setup code is in no answer and no log line")
    func pair() async throws {
        try await withWebPageHarness { page in
            let paired = try await page.post(
                "/api/bridge/request/pair", #"{"host":"127.0.0.1","port":51826,"code":"\#(Self.code)","name":"Desk"}"#)
            #expect(paired.status == 200)
            let data = try #require(paired.json?["data"] as? [String: Any])
            #expect(data["name"] as? String == "Desk")
            #expect(data["id"] as? String == "AA:BB:CC:DD:EE:FF")
            #expect(page.pairing.codes == [Self.code])
            #expect(!paired.text.contains("031") && !paired.text.contains("45154"))
            #expect(page.logText.contains("web page: pair done"))
            #expect(!page.logText.contains(Self.code) && !page.logText.contains("03145154"))
        }
    }

    @Test("pair's errors: a status for each kind and the operation's one line, and nothing is paired")
    func pairErrors() async throws {
        try await withWebPageHarness { page in
            let path = "/api/bridge/request/pair"
            let cases: [(String, Int, String)] = [
                (#"{"host":"127.0.0.1","#, 400, "the body must be a JSON object"),
                ("[1,2]", 400, "the body must be a JSON object"),
                (
                    #"{"host":"127.0.0.1","port":"51826","code":"\#(Self.code)"}"#, 400,
                    #""port" must be a number from 1 to 65535"#
                ),
                (#"{"host":5,"port":51826,"code":"\#(Self.code)"}"#, 400, #""host" must be a string"#),
                (#"{"host":"127.0.0.1","port":51826,"code":31445154}"#, 400, #""code" must be a string"#),
                (#"{"host":"127.0.0.1","port":51826}"#, 400, "give the accessory's setup code (XXX-XX-XXX)"),
                (#"{"host":"127.0.0.1","port":70000,"code":"\#(Self.code)"}"#, 400, ""),
            ]
            for (body, status, error) in cases {
                let answer = try await page.post(path, body)
                #expect(answer.status == status, "\(body): \(answer.status) \(answer.text)")
                #expect(answer.json?["status"] as? String == "error", "\(body)")
                if !error.isEmpty { #expect(answer.json?["error"] as? String == error, "\(body)") }
            }
            #expect(page.pairing.pairCount == 0)

            let good = #"{"host":"127.0.0.1","port":51826,"code":"\#(Self.code)"}"#
            page.pairing.fail(with: .wrongSetupCode)
            let wrong = try await page.post(path, good)
            #expect(wrong.status == 422)
            #expect(wrong.json?["error"] as? String == "wrong setup code: check the 8-digit code on the accessory")
            page.pairing.fail(with: .unreachable("cannot reach 127.0.0.1:51826: connection refused"))
            let nowhere = try await page.post(path, good)
            #expect(nowhere.status == 502)
            #expect(nowhere.json?["error"] as? String == "cannot reach 127.0.0.1:51826: connection refused")
            #expect(!page.logText.contains(Self.code))
        }
    }

    @Test("a second pair while one is under way is told it is busy (409)")
    func busy() async throws {
        try await withWebPageHarness { page in
            let path = "/api/bridge/request/pair"
            page.pairing.hold()
            let first = Task { try await page.post(path, #"{"host":"127.0.0.1","port":51826,"code":"\#(Self.code)"}"#) }
            try await eventually("the first pair to start") { page.pairing.pairCount == 1 }
            let second = try await page.post(path, #"{"host":"127.0.0.1","port":51827,"code":"\#(Self.code)"}"#)
            #expect(second.status == 409)
            #expect(
                second.json?["error"] as? String
                    == "another pairing is under way (with 127.0.0.1:51826): try again when it has finished")
            page.pairing.release()
            #expect(try await first.value.status == 200)
        }
    }

    @Test("unpair and refresh by slug go to Management; an unknown accessory is 404, a wrong type 400")
    func unpairAndRefresh() async throws {
        try await withWebPageHarness { page in
            let unpaired = try await page.post("/api/bridge/request/unpair", #"{"accessory":"kitchen_lamp"}"#)
            #expect(unpaired.status == 200, "\(unpaired.text)")
            #expect((unpaired.json?["data"] as? [String: Any])?["outcome"] as? String == "removed")
            #expect(page.pairing.unpairs.map(\.0) == [WebPageHarness.serverID])
            #expect(page.pairing.unpairs.map(\.1) == [false])
            let force = try await page.post("/api/bridge/request/unpair", #"{"accessory":"kitchen_lamp","force":1}"#)
            #expect(force.status == 400)
            #expect(force.json?["error"] as? String == #""force" must be true or false"#)
            let nameless = try await page.post("/api/bridge/request/unpair", "{}")
            #expect(nameless.status == 400)
            #expect(page.pairing.unpairs.count == 1)

            let all = try await page.post("/api/bridge/request/refresh", "{}")
            #expect(all.status == 200, "\(all.text)")
            #expect((all.json?["data"] as? [String: Any])?["accessory_servers"] as? [String] == ["memory"])
            let one = try await page.post("/api/bridge/request/refresh", #"{"accessory":"kitchen_lamp"}"#)
            #expect(one.status == 200, "\(one.text)")
            let unknown = try await page.post("/api/bridge/request/refresh", #"{"accessory":"nowhere"}"#)
            #expect(unknown.status == 404)
            #expect(unknown.json?["error"] as? String == "no accessory 'nowhere'; see bridge/accessories")
            let wrongType = try await page.post("/api/bridge/request/refresh", #"{"accessory":["kitchen_lamp"]}"#)
            #expect(wrongType.status == 400)
        }
    }

    @Test("the accessories seen on the network: the list, and each change on the event stream")
    func discovered() async throws {
        try await withWebPageHarness { page in
            let empty = try await page.request("GET", "/api/discovered")
            #expect(empty.status == 200)
            #expect(empty.text == #"{"discovery":true,"accessories":[]}"#)
            let stream = try await EventStreamReader(port: page.port)
            defer { stream.close() }
            let lamp = DiscoveredAccessory(
                id: "AA:BB:CC:DD:EE:01", name: "Desk Lamp", model: "L1", category: .lightbulb,
                addresses: ["10.0.0.9"], port: 51826, pairedElsewhere: false)
            try await eventually("the stream to follow the discovery") {
                page.discovery.set([lamp])
                return (try? await page.request("GET", "/api/discovered"))?.text.contains("Desk Lamp") == true
            }
            let event = try await stream.next("discovered")
            #expect(event.contains(#""discovery":true"#))
            let list = try #require(try await page.request("GET", "/api/discovered").json)
            let entry = try #require((list["accessories"] as? [[String: Any]])?.first)
            #expect(entry["id"] as? String == "AA:BB:CC:DD:EE:01")
            #expect(entry["address"] as? String == "10.0.0.9")
            #expect(entry["port"] as? Int == 51826)
        }
    }

    @Test("health is bridge/health's object: uptime, memory, MQTT counts, each accessory server's counts")
    func health() async throws {
        try await withWebPageHarness { page in
            let on = page.address(aid: 2, .Characteristic.on)
            let written = try await page.post(
                "/api/accessories/kitchen_lamp/characteristics/\(on.iid)", #"{"value":true}"#)
            #expect(written.status == 200)
            let health = try #require(try await page.request("GET", "/api/health").json)
            #expect(health["uptime"] is Int)
            #expect((health["mqtt"] as? [String: Any])?["sent"] is Int)
            let servers = try #require(health["accessory_servers"] as? [[String: Any]])
            #expect(servers.count == 1)
            #expect(servers.first?["id"] as? String == "memory")
            #expect(servers.first?["writes"] as? Int == 1)
            #expect(servers.first?["accessories"] as? Int == 3)
        }
    }

    @Test("without the token the management API is 401 and runs nothing; a body over the limit is 413")
    func refused() async throws {
        try await withWebPageHarness(token: "secret-token-1", limits: HTTPLimits(maxBody: 256)) { page in
            for path in ["/api/health", "/api/discovered"] {
                #expect(try await page.request("GET", path).status == 401, "\(path)")
            }
            let pair = #"{"host":"127.0.0.1","port":51826,"code":"\#(Self.code)"}"#
            #expect(try await page.post("/api/bridge/request/pair", pair).status == 401)
            let wrong = try await page.post(
                "/api/bridge/request/unpair", #"{"accessory":"kitchen_lamp"}"#,
                headers: ["Authorization": "Bearer secret-token-2"])
            #expect(wrong.status == 401)
            let bearer = ["Authorization": "Bearer secret-token-1"]
            let big =
                #"{"host":"127.0.0.1","port":51826,"code":"\#(Self.code)","name":""#
                + String(repeating: "x", count: 400) + #""}"#
            #expect(try await page.post("/api/bridge/request/pair", big, headers: bearer).status == 413)
            #expect(try await page.request("GET", "/api/health/now", headers: bearer).status == 404)
            #expect(try await page.request("POST", "/api/discovered", headers: bearer).status == 415)
            #expect(try await page.post("/api/discovered", "{}", headers: bearer).status == 404)
            #expect(page.pairing.pairCount == 0)
            #expect(page.pairing.unpairs.isEmpty)
            #expect(try await page.request("GET", "/api/health", headers: bearer).status == 200)
        }
    }
}

extension WebPageHarness {
    /// Every log line so far, one text.
    var logText: String { log.lines.joined(separator: "\n") }
}
