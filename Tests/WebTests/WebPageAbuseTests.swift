import Foundation
import HAP2MQTTTesting
import HomeModel
import Testing
import Web

/// What an attacker can do to the page: hold slow connections, guess tokens, keep a session after the
/// token changed. Each case as a client on loopback would see it.
@Suite("Web page under attack", .serialized)
struct WebPageAbuseTests {
    static let token = "correct-horse-battery-staple-4711"

    @Test(
        "200 slow connections from one address hold only its share: another client is answered within 2 s, MQTT keeps going, and each slow connection ends at the request deadline"
    )
    func slowConnections() async throws {
        let limits = HTTPLimits(connectionsPerClient: 12, requestSeconds: 3)
        try await withWebPageHarness(limits: limits) { page in
            let slow = await SlowHTTPClients.open(count: 200, port: page.port, from: "127.0.0.2")
            defer { slow.close() }
            try await eventually("the connections past the per-client limit are closed") {
                slow.stillOpen() <= limits.connectionsPerClient
            }
            let started = ContinuousClock.now
            let index = try await page.request("GET", "/")
            #expect(index.status == 200)
            let list = try await page.request("GET", "/api/accessories")
            #expect(list.jsonArray?.count == 3)
            #expect(ContinuousClock.now - started < .seconds(2))

            page.provider.changeValue(page.address(aid: 2, .Characteristic.on), to: .bool(true))
            try await page.mqtt.waitFor(topic: "hap2mqtt/kitchen_lamp/lightbulb/on") { $0.payloadString == "true" }

            // A header line every half second restarts an idle timeout; the request deadline still holds.
            let trickling = ContinuousClock.now
            while slow.stillOpen() > 0, ContinuousClock.now - trickling < .seconds(20) {
                await slow.trickle()
                try await Task.sleep(for: .milliseconds(500))
            }
            #expect(slow.stillOpen() == 0)
            #expect(ContinuousClock.now - trickling < .seconds(limits.idleTimeoutSeconds))
            #expect(try await page.request("GET", "/api/health").status == 200)
        }
    }

    @Test(
        "wrong tokens: after three an address waits, longer each time, without its tries being checked; the log says it once with the address and counts"
    )
    func bruteForce() async throws {
        try await withWebPageHarness(token: Self.token) { page in
            let session = try await page.session(Self.token)
            var answers: [HTTPTestClient.Response] = []
            for attempt in 0..<200 { answers.append(try await page.login("guess-\(attempt)")) }
            let statuses = answers.map(\.status)
            #expect(Array(statuses.prefix(3)) == [401, 401, 401])
            // Each wait that ends lets one try through and doubles the next (1, 2, 4 … s): however slow this
            // machine, only a handful of the 200 tries had their token looked at (AccessGuardTests shows,
            // with a clock of its own, that a try during a wait is not looked at, not even the right token).
            #expect(statuses.allSatisfy { $0 == 401 || $0 == 429 })
            #expect(statuses.count { $0 == 401 } <= 10, "\(statuses)")
            let waiting = try #require(answers.first { $0.status == 429 })
            #expect(waiting.text.contains("too many wrong tokens from this address; try again in"))
            #expect(Int(waiting.headers["retry-after"] ?? "") != nil)
            // A browser signed in before keeps working.
            #expect(
                try await page.request("GET", "/api/accessories", headers: ["Cookie": session]).status == 200)

            let reports = page.log.lines.filter { $0.contains("login tries refused") }
            #expect(reports.count == 1, "\(reports)")
            #expect(reports.first?.contains("warning") == true)
            #expect(reports.first?.contains("127.0.0.1 (1 wrong)") == true, "\(reports)")
            #expect(!page.log.lines.contains { $0.contains(Self.token) || $0.contains("guess-") })

            // The wait ends: one second after the third wrong token at the latest after it grew.
            try await eventually("the address may try again", timeout: .seconds(90)) {
                try await page.login(Self.token).status == 303
            }
        }
    }

    @Test("a new token ends every session of the old one; sign out ends one session")
    func tokenReplaced() async throws {
        try await withWebPageHarness(token: Self.token) { page in
            let session = try await page.session(Self.token)
            #expect(try await page.request("GET", "/api/accessories", headers: ["Cookie": session]).status == 200)

            let newToken = "a-new-token-from-the-file-0042"
            #expect(try page.frontend.replaceToken(newToken))
            #expect(try !page.frontend.replaceToken(newToken))
            #expect(try await page.request("GET", "/api/accessories", headers: ["Cookie": session]).status == 401)
            let old = try await page.request(
                "GET", "/api/accessories", headers: ["Authorization": "Bearer \(Self.token)"])
            #expect(old.status == 401)
            let new = try await page.request(
                "GET", "/api/accessories", headers: ["Authorization": "Bearer \(newToken)"])
            #expect(new.status == 200)
            #expect(
                page.log.lines.contains { $0.contains("the token changed; every session of the old one has ended") })
            #expect(!page.log.lines.contains { $0.contains(newToken) })

            let second = try await page.session(newToken)
            let out = try await page.request("POST", "/logout", headers: ["Cookie": second])
            #expect(out.status == 303)
            #expect(out.headers["set-cookie"]?.contains("Max-Age=0") == true)
            #expect(try await page.request("GET", "/api/accessories", headers: ["Cookie": second]).status == 401)
            #expect(try await page.request("GET", "/logout", headers: ["Cookie": second]).status == 405)
        }
    }
}

/// The page's newer reads: the catalogue's words, the excluded accessories, whether there is a session
/// to end; each refuses what it does not take and changes nothing.
@Suite("Web page catalogue and options")
struct WebPageCatalogTests {
    @Test("/api/catalog has the words for types, values and units; /api/excluded the accessories left out")
    func catalogAndExcluded() async throws {
        try await withWebPageHarness { page in
            let catalog = try #require(try await page.request("GET", "/api/catalog").json)
            let services = try #require(catalog["services"] as? [String: String])
            #expect(services["43"] == "Light")
            let characteristics = try #require(catalog["characteristics"] as? [String: [String: Any]])
            #expect(characteristics["1D"]?["label"] as? String == "Lock")
            #expect((characteristics["1D"]?["values"] as? [String: String])?["1"] == "Locked")
            #expect((catalog["units"] as? [String: String])?["celsius"] == "°C")
            #expect(try await page.request("GET", "/api/session").json?["token_required"] as? Bool == false)

            #expect(try await page.request("GET", "/api/excluded").jsonArray?.isEmpty == true)
            let excluded = try await page.post(
                "/api/bridge/request/options", #"{"accessory":"kitchen_lamp","options":{"exclude":true}}"#)
            #expect(excluded.status == 200)
            try await eventually("the list leaves it out") {
                try await page.request("GET", "/api/accessories").jsonArray?.count == 2
            }
            let hidden = try #require(try await page.request("GET", "/api/excluded").jsonArray)
            #expect(hidden.count == 1)
            #expect(hidden.first?["name"] as? String == "Kitchen Lamp")
            #expect(hidden.first?["id"] as? String == page.id(2).description)

            let list = try #require(try await page.request("GET", "/api/accessories").jsonArray)
            let values = try #require(list.first?["values"] as? [String: Any])
            #expect(!values.isEmpty)

            for (method, path) in [("POST", "/api/catalog"), ("POST", "/api/excluded"), ("DELETE", "/api/session")] {
                let answer = try await page.request(
                    method, path, headers: ["Content-Type": "application/json"], body: "{}")
                #expect(answer.status == 404, "\(method) \(path)")
                #expect((answer.json?["error"] as? String)?.hasPrefix("no API at") == true)
            }
            let wrong = try await page.post(
                "/api/bridge/request/options", #"{"accessory":"front_door","options":{"room":7}}"#)
            #expect(wrong.status == 400)
            #expect(
                wrong.json?["error"] as? String == #""room" must be a string, or null to remove it"#)
            #expect(
                try await page.request("GET", "/api/accessories").jsonArray?.contains { $0["room"] as? String == "7" }
                    == false)
        }
    }

    @Test("a display name and room set from the page rename the accessory's slug and place it, as over MQTT")
    func nameAndRoom() async throws {
        try await withWebPageHarness { page in
            let answer = try await page.post(
                "/api/bridge/request/options",
                #"{"accessory":"\#(page.id(2).description)","options":{"name":"Desk Lamp","room":"Study"}}"#)
            #expect(answer.status == 200, "\(answer.text)")
            let data = try #require(answer.json?["data"] as? [String: Any])
            #expect(data["accessory"] as? String == "desk_lamp")
            let lamp = try #require(try await page.request("GET", "/api/accessories/desk_lamp").json)
            #expect(lamp["room"] as? String == "Study")
            #expect(lamp["name"] as? String == "Desk Lamp")
        }
    }
}
