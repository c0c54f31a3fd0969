import Foundation
import Gateway
import HAP2MQTTTesting
import HomeStore
import Testing
import Web

/// Who may use the page: the token on every request (a bearer header or the login form's session
/// cookie), never shown back; without a token, loopback only and only under this machine's names.
@Suite("Web page access")
struct WebPageAccessTests {
    static let token = "correct-horse-battery-staple-4711"

    @Test("without the token every request is refused: the page shows the login form, the API says 401")
    func refused() async throws {
        try await withWebPageHarness(token: Self.token) { page in
            let index = try await page.request("GET", "/")
            #expect(index.status == 401)
            #expect(index.text.contains(#"<form method="post" action="/login">"#))
            #expect(!index.text.contains("Kitchen Lamp"))
            for path in ["/app.js", "/style.css", "/api/accessories", "/api/events", "/api/log", "/nothing"] {
                #expect(try await page.request("GET", path).status == 401, "\(path)")
            }
            let wrong = try await page.request("GET", "/api/accessories", headers: ["Authorization": "Bearer guess"])
            #expect(wrong.status == 401)
            #expect(wrong.json?["error"] as? String == "a valid token is required (Authorization: Bearer <token>)")
            let write = try await page.post("/api/bridge/request/identify", #"{"accessory":"kitchen_lamp"}"#)
            #expect(write.status == 401)
            #expect(page.provider.identified.isEmpty)
        }
    }

    @Test("the right bearer token opens the API")
    func bearer() async throws {
        try await withWebPageHarness(token: Self.token) { page in
            let list = try await page.request(
                "GET", "/api/accessories", headers: ["Authorization": "Bearer \(Self.token)"])
            #expect(list.status == 200)
            #expect(list.jsonArray?.count == 3)
        }
    }

    @Test(
        "the login form: a wrong token is refused and logged without it; the right one gives a session cookie, not the token"
    )
    func login() async throws {
        try await withWebPageHarness(token: Self.token) { page in
            let form = ["Content-Type": "application/x-www-form-urlencoded"]
            let wrong = try await page.request("POST", "/login", headers: form, body: "token=guess")
            #expect(wrong.status == 401)
            #expect(wrong.text.contains("That token is not right."))
            #expect(wrong.headers["set-cookie"] == nil)

            let right = try await page.request("POST", "/login", headers: form, body: "token=\(Self.token)")
            #expect(right.status == 303)
            #expect(right.headers["location"] == "/")
            let cookie = try #require(right.headers["set-cookie"])
            #expect(cookie.hasPrefix("hap2mqtt_session="))
            #expect(cookie.contains("HttpOnly"))
            #expect(cookie.contains("SameSite=Strict"))
            #expect(!cookie.contains(Self.token))
            let session = String(cookie.prefix { $0 != ";" })
            let index = try await page.request("GET", "/", headers: ["Cookie": session])
            #expect(index.status == 200)
            let list = try await page.request("GET", "/api/accessories", headers: ["Cookie": session])
            #expect(list.status == 200)
            let forged = try await page.request(
                "GET", "/api/accessories", headers: ["Cookie": "hap2mqtt_session=\(Self.token)"])
            #expect(forged.status == 401)

            for answer in [wrong, right, index, list] {
                #expect(!answer.text.contains(Self.token))
                #expect(!answer.headers.values.contains { $0.contains(Self.token) })
            }
            #expect(!page.log.lines.contains { $0.contains(Self.token) })
            #expect(
                page.log.lines.contains {
                    $0.contains("login tries refused (a wrong token, or too soon after one): 127.0.0.1 (1 wrong)")
                })
        }
    }

    @Test("without a token the page answers only under this machine's names (no DNS rebinding)")
    func hostCheck() async throws {
        try await withWebPageHarness { page in
            #expect(try await page.request("GET", "/", headers: ["Host": "localhost:\(page.port)"]).status == 200)
            let rebound = try await page.request(
                "GET", "/api/accessories", headers: ["Host": "attacker.example:\(page.port)"])
            #expect(rebound.status == 403)
            let other = try await page.request("GET", "/", headers: ["Host": "127.0.0.1:1"])
            #expect(other.status == 403)
        }
    }

    @Test("an address other machines can reach needs a token: start refuses with one line")
    func tokenRequired() async throws {
        let log = LogCapture()
        let store = HomeStore(logger: log.logger(label: "homestore"))
        let gateway = Gateway(
            configuration: GatewayConfiguration(), store: store, mqtt: RecordingMQTTClient(),
            logger: log.logger(label: "gateway"))
        let open = WebPage(
            configuration: WebPageConfiguration(host: "0.0.0.0", port: 0), store: store, gateway: gateway,
            management: Management(pairing: FakeAccessoryPairing(), logger: log.logger(label: "management")),
            feed: LogFeed(),
            logger: log.logger(label: "frontend"))
        #expect(throws: WebPageError.tokenRequired(host: "0.0.0.0")) { try open.start() }
        #expect(open.port == nil)
        #expect(
            WebPageError.tokenRequired(host: "0.0.0.0").description
                == "0.0.0.0 can be reached from other machines, so the page needs a token: set frontend.auth_token_file (or frontend.auth_token), or use host 127.0.0.1"
        )
        #expect(WebPageConfiguration.isLoopback(host: "127.0.0.1"))
        #expect(WebPageConfiguration.isLoopback(host: "::1"))
        #expect(WebPageConfiguration.isLoopback(host: "localhost"))
        #expect(!WebPageConfiguration.isLoopback(host: "0.0.0.0"))
        #expect(!WebPageConfiguration.isLoopback(host: "::"))
        #expect(!WebPageConfiguration.isLoopback(host: "no such host."))
    }
}
