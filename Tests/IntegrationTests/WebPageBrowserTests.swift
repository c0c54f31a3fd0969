import Foundation
import HAP2MQTTTesting
import HomeModel
import Testing

/// The web page in a real browser (Debian's headless chromium, driven by Selenium) against the real
/// binary, a real mosquitto and the HAP-python bridge: what a user sees and does on the page reaches the
/// accessory, and what the accessory does shows on the page without a reload.
@Suite("Web page in a browser", .serialized)
struct WebPageBrowserTests {
    static let token = "browser-test-token-5150"

    /// The gateway with its page on a free port behind `token`, online; the page's address from its log.
    static func start(token: String = "auth_token: \(token)") async throws -> (LiveGateway, String) {
        let live = try await LiveGateway.start(
            extraYAML: """
                frontend:
                  enabled: true
                  port: 0
                  \(token)
                """)
        try await live.waitUntilOnline()
        var url: String?
        try await eventually("the web page's address in the log") {
            url =
                live.gateway.log.split(separator: "\n").lazy.compactMap { line -> String? in
                    guard let start = line.range(of: "web page at ")?.upperBound else { return nil }
                    return String(line[start...].prefix { $0 != " " })
                }.first
            return url != nil
        }
        return (live, try #require(url))
    }

    @Test("a wrong token is refused; the right one shows the accessories")
    func signIn() async throws {
        let (live, url) = try await Self.start()
        let browser = try await Browser.start()
        do {
            try await browser.open(url)
            try await browser.type("#token", "not-the-token", enter: true)
            try await browser.wait(".problem", text: "That token is not right.")
            #expect(try await browser.url() == url + "login")
            try await browser.type("#token", Self.token, enter: true)
            try await browser.wait("#accessories .accessory", text: "Light")
            for name in ["Switch", "Temperature", "Lock", "Thermostat", "Blind"] {
                try await browser.wait("#accessories .accessory", text: name)
            }
            #expect(!live.gateway.log.contains(Self.token))
        } catch {
            Issue.record("\(error)\n\(await browser.diagnosis())")
        }
        await browser.quit()
        await live.stop()
    }

    @Test("switching the lamp on from the page calls the accessory's setter, and the page shows the confirmed state")
    func lampOn() async throws {
        let (live, url) = try await Self.start()
        let browser = try await Browser.start()
        do {
            try await signIn(browser, url)
            try await browser.click(#"#accessories .accessory[data-slug="light"] a.tile-name"#)
            let on = #"[data-characteristic="lightbulb/on"]"#
            try await browser.wait(on + " input.switch", property: "checked", equals: false)
            try await browser.click(on + " input.switch")
            try await browser.wait(#"[data-result="lightbulb/on"].ok"#, text: "ok: On")
            let calls = try await live.accessory.waitForSetterCalls(count: 1)
            #expect(
                calls.contains { $0.accessory == "Light" && $0.characteristic == "On" && $0.value?.boolValue == true })
            try await browser.wait(on + " input.switch", property: "checked", equals: true)
            try await live.waitFor("hap2mqtt/light/lightbulb/on", "true")
        } catch {
            Issue.record("\(error)\n\(await browser.diagnosis())\n--- hap2mqtt ---\n\(live.gateway.log.suffix(3000))")
        }
        await browser.quit()
        await live.stop()
    }

    @Test("a brightness off the range shows the error and the accessory gets nothing")
    func brightnessOffRange() async throws {
        let (live, url) = try await Self.start()
        let browser = try await Browser.start()
        do {
            try await signIn(browser, url)
            try await browser.open(url + "#/accessory/light")
            let brightness = #"[data-characteristic="lightbulb/brightness"]"#
            try await browser.type(brightness + #" input[type="number"]"#, "150", enter: true)
            let error = try await browser.wait(#"[data-result="lightbulb/brightness"].error"#)
            #expect(error.contains("150") && error.contains("100"), "\(error)")
            #expect(live.accessory.setterCalls.isEmpty)
        } catch {
            Issue.record("\(error)\n\(await browser.diagnosis())")
        }
        await browser.quit()
        await live.stop()
    }

    @Test("a change made on the accessory's side appears on the page without a reload")
    func accessorySideChange() async throws {
        let (live, url) = try await Self.start()
        let browser = try await Browser.start()
        do {
            try await signIn(browser, url)
            try await browser.open(url + "#/accessory/light")
            let brightness = #"[data-characteristic="lightbulb/brightness"] input[type="range"]"#
            try await browser.wait(#"#live.on"#)
            try await live.accessory.setValue(accessory: "Light", characteristic: "Brightness", value: .int(42))
            try await browser.wait(brightness, property: "value", equals: "42")
            try await live.accessory.setValue(accessory: "Light", characteristic: "On", value: .bool(true))
            try await browser.wait(
                #"[data-characteristic="lightbulb/on"] input.switch"#, property: "checked", equals: true)
        } catch {
            Issue.record("\(error)\n\(await browser.diagnosis())")
        }
        await browser.quit()
        await live.stop()
    }

    @Test("pairing a second accessory from the form: a wrong code shows the clear error, the right one lists it")
    func pairFromForm() async throws {
        let (live, url) = try await Self.start()
        let second = try await HAPPythonAccessory.start(lights: 2)
        let browser = try await Browser.start()
        do {
            try await second.setValue(accessory: "Light 1", characteristic: "Brightness", value: .int(37))
            try await signIn(browser, url)
            try await browser.click(#"nav a[data-nav="pair"]"#)
            // Discovery is off in the tests: the page says so, and pairs by host and port.
            try await browser.wait("#discovered", text: "Discovery is off")
            try await browser.type("#pair-host", "127.0.0.1")
            try await browser.type("#pair-port", String(second.port))
            let wrong = second.setupCode == "111-22-333" ? "111-22-334" : "111-22-333"
            try await browser.type("#pair-code", wrong)
            try await browser.click("#pair-submit")
            try await browser.wait(
                "#pair-outcome .notice.error", text: "wrong setup code: check the 8-digit code on the accessory",
                timeout: 60)
            try await browser.wait("#pair-code", property: "value", equals: "")
            #expect(try await second.status().paired == false)

            try await browser.type("#pair-code", second.setupCode)
            try await browser.type("#pair-name", "Second Bridge")
            try await browser.click("#pair-submit")
            try await browser.wait("#pair-outcome .notice.ok", text: "Paired Second Bridge", timeout: 60)
            try await browser.wait("#pair-code", property: "value", equals: "")
            let page = try await browser.property("body", "innerHTML") as? String ?? ""
            #expect(!page.contains(second.setupCode))

            try await browser.click(#"nav a[data-nav="accessories"]"#)
            try await browser.wait("#accessories .accessory", text: "Light 1")
            try await browser.wait("#accessories .accessory", text: "Light 2")
            try await browser.click(#"#accessories .accessory[data-slug="light_1"] a.tile-name"#)
            try await browser.wait(
                #"[data-characteristic="lightbulb/brightness"] input[type="range"]"#, property: "value", equals: "37")
            for form in [second.setupCode, wrong, second.setupCode.replacingOccurrences(of: "-", with: "")] {
                #expect(!live.gateway.log.contains(form), "a setup code is in the log")
            }
        } catch {
            Issue.record("\(error)\n\(await browser.diagnosis())\n--- hap2mqtt ---\n\(live.gateway.log.suffix(3000))")
        }
        await browser.quit()
        await second.stop()
        await live.stop()
    }

    @Test("unpair asks first: cancel keeps the accessory; confirmed, its accessory server leaves the list")
    func unpairWithConfirmation() async throws {
        let (live, url) = try await Self.start()
        let browser = try await Browser.start()
        do {
            try await signIn(browser, url)
            try await browser.open(url + "#/accessory/light")
            try await browser.click("#unpair")
            try await browser.wait("#unpair-confirmation", text: "Unpair Light?")
            try await browser.wait("#unpair-confirmation", text: "Switch")
            try await browser.click("#unpair-cancel")
            try await browser.waitGone("#unpair-confirmation")
            #expect(try await live.accessory.status().paired == true)

            try await browser.click("#unpair")
            try await browser.click("#unpair-confirm")
            try await browser.wait("#outcome .notice.ok", text: "Unpaired", timeout: 60)
            try await browser.wait(".empty", text: "No accessories yet.")
            #expect(try await browser.url() == url + "#/")
            #expect(try await live.accessory.status().paired == false)
            try await live.waitFor("hap2mqtt/bridge/accessories", "[]")
        } catch {
            Issue.record("\(error)\n\(await browser.diagnosis())\n--- hap2mqtt ---\n\(live.gateway.log.suffix(3000))")
        }
        await browser.quit()
        await live.stop()
    }

    @Test("refresh answers with the accessory server it fetched again; health shows the gateway's real counts")
    func refreshAndHealth() async throws {
        let (live, url) = try await Self.start()
        let browser = try await Browser.start()
        do {
            try await signIn(browser, url)
            try await browser.open(url + "#/accessory/light")
            let server = "hap:" + (try await live.accessory.status().pairingID).uppercased()
            try await browser.click("#refresh")
            try await browser.wait("#outcome .notice.ok", text: "Refreshed \(server).")
            try await browser.click(#"[data-characteristic="lightbulb/on"] input.switch"#)
            try await browser.wait(#"[data-result="lightbulb/on"].ok"#, text: "ok: On")

            try await browser.click(#"nav a[data-nav="health"]"#)
            let card = #".server[data-server="\#(server)"]"#
            try await browser.wait(card, text: "Light, Switch")
            try await browser.wait(card + " .badge.online", text: "connected")
            try await browser.wait(card + #" [data-field="address"]"#, text: "127.0.0.1:\(live.accessory.port)")
            try await browser.wait(card + #" [data-field="writes"]"#, text: "1")
            try await browser.wait(card + #" [data-field="failed_writes"]"#, text: "0")
            let reads = try await browser.wait(card + #" [data-field="reads"]"#)
            #expect(Int(reads) != nil, "reads: \(reads)")
            try await browser.wait(#"#health [data-field="uptime"]"#, text: "min")
            try await browser.wait(#"#health [data-field="memory"]"#, text: "MiB")
            // The gateway has published the home on MQTT by now.
            let sent = try await browser.wait(#"#health [data-field="sent"]"#)
            #expect((Int(sent) ?? 0) > 0, "sent: \(sent)")
        } catch {
            Issue.record("\(error)\n\(await browser.diagnosis())\n--- hap2mqtt ---\n\(live.gateway.log.suffix(3000))")
        }
        await browser.quit()
        await live.stop()
    }

    @Test(
        "the dashboard: each lab accessory's state in words, its control on the tile reaches the accessory, and the names are people's"
    )
    func dashboard() async throws {
        let (live, url) = try await Self.start()
        let browser = try await Browser.start()
        do {
            try await signIn(browser, url)
            func tile(_ slug: String) -> String { #"#accessories .tile[data-slug="\#(slug)"]"# }
            try await browser.wait(tile("light") + " .state", text: "Off")
            try await browser.wait(tile("switch") + " .state", text: "Off")
            try await browser.wait(tile("temperature") + " .state", text: "21.5 °C")
            try await browser.wait(tile("lock") + " .state", text: "Unlocked")
            try await browser.wait(tile("thermostat") + " .state", text: "20 °C")
            try await browser.wait(tile("thermostat") + " .state", text: "Off")
            try await browser.wait(tile("blind") + " .state", text: "Closed")
            try await browser.wait("#accessories .room h2", text: "No room")

            try await browser.click(tile("light") + " input.switch")
            try await browser.wait(tile("light") + " .state", text: "On · 0 %")
            try await browser.click(tile("lock") + #" [data-control="lock"]"#)
            try await browser.wait(tile("lock") + " .state", text: "Locked")
            try await browser.click(tile("thermostat") + #" [aria-label="raise Target temperature"]"#)
            try await browser.wait(tile("thermostat") + " .stepper .value", text: "21.5 °C")
            let calls = try await live.accessory.waitForSetterCalls(count: 3)
            #expect(
                calls.contains { $0.accessory == "Light" && $0.characteristic == "On" && $0.value?.boolValue == true })
            #expect(calls.contains { $0.accessory == "Lock" && $0.characteristic == "LockTargetState" })
            #expect(calls.contains { $0.accessory == "Thermostat" && $0.characteristic == "TargetTemperature" })
            // A change on the accessory's side shows on its tile without a reload.
            try await live.accessory.setValue(
                accessory: "Temperature", characteristic: "CurrentTemperature", value: .float(19))
            try await browser.wait(tile("temperature") + " .state", text: "19 °C")

            try await browser.click(tile("thermostat") + " a.tile-name")
            try await browser.wait(#"[data-service="thermostat"] h2"#, text: "Thermostat")
            let page = try await browser.wait("main")
            for raw in ["CurrentHeatingCoolingState", "ACCESSORYINFORMATION", "SerialNumber", #""""#] {
                #expect(!page.contains(raw), "\(raw) on the page")
            }
            try await browser.wait(
                #"[data-characteristic="thermostat/current_heating_cooling_state"] .label"#, text: "Heating or cooling")
            try await browser.wait(#"[data-characteristic="thermostat/target_heating_cooling_state"] select"#)
            #expect(try await browser.property("#information", "open") as? Bool == false)
            let identify = try await browser.property("main", "innerText") as? String ?? ""
            #expect(identify.components(separatedBy: "Identify").count == 2, "Identify once: \(identify)")
        } catch {
            Issue.record("\(error)\n\(await browser.diagnosis())\n--- hap2mqtt ---\n\(live.gateway.log.suffix(3000))")
        }
        await browser.quit()
        await live.stop()
    }

    @Test("an accessory that cannot be reached is listed as unavailable, with why, and its tile says so")
    func unavailable() async throws {
        let (live, url) = try await Self.start()
        let browser = try await Browser.start()
        do {
            try await signIn(browser, url)
            await live.accessory.stop()
            try await browser.wait("#unavailable li", text: "Light", timeout: 90)
            let why = try await browser.wait(#"#unavailable li"#)
            #expect(why.contains(": "), "no reason: \(why)")
            try await browser.wait(#"#accessories .tile.unavailable[data-slug="lock"] .state"#, text: "Unavailable: ")
            try await browser.waitGone(#".tile[data-slug="lock"] .tile-control"#)
            // Why, as the code automations read in bridge/accessories, on the accessory's page and the health view.
            try await browser.open(url + "#/accessory/light")
            let code = try await browser.wait(#"#reason[data-offline-reason]"#)
            let codes = ["unreachable", "connection_failed", "connection_lost"]
            #expect(codes.contains { code.hasSuffix("(\($0))") }, "\(code)")
            try await browser.click(#"nav a[data-nav="health"]"#)
            let reason = try await browser.wait(#"#servers .server [data-field="offline_reason"]"#)
            #expect(codes.contains(reason), "\(reason)")
            try await browser.wait(#"#servers .server [data-field="keep-alive"]"#, text: "30 s")
        } catch {
            Issue.record("\(error)\n\(await browser.diagnosis())\n--- hap2mqtt ---\n\(live.gateway.log.suffix(3000))")
        }
        await browser.quit()
        await live.stop()
    }

    @Test("display name, room and exclusion edited from the page go through bridge/request/options and show on MQTT")
    func optionsFromPage() async throws {
        let (live, url) = try await Self.start()
        let browser = try await Browser.start()
        do {
            try await signIn(browser, url)
            try await browser.open(url + "#/accessory/light")
            try await browser.type("#option-name", "Desk Lamp")
            try await browser.type("#option-room", "Study")
            try await browser.click("#options-save")
            try await browser.wait("#outcome .notice.ok", text: "Saved.")
            try await browser.wait("h1", text: "Desk Lamp")
            try await eventually("bridge/accessories carries the name and room") {
                let list = try await live.accessoryList()
                return list.contains { $0.name == "Desk Lamp" && $0.room == "Study" }
            }
            try await browser.click(#"nav a[data-nav="accessories"]"#)
            try await browser.wait(#"#accessories .room[data-room="Study"] .tile"#, text: "Desk Lamp")

            try await browser.click(#"#accessories .tile a.tile-name"#)
            try await browser.wait("h1", text: "Desk Lamp")
            try await browser.click("#option-exclude")
            try await browser.click("#options-save")
            try await browser.wait("#outcome .notice.ok", text: "Excluded Desk Lamp")
            try await browser.wait("#excluded li", text: "Desk Lamp")
            try await browser.waitGone(#"#accessories .tile[data-slug="desk_lamp"]"#)
            try await eventually("the accessory leaves bridge/accessories") {
                try await !live.accessoryList().contains { $0.name == "Desk Lamp" }
            }
            try await browser.click("#excluded li button")
            try await browser.wait("#outcome .notice.ok", text: "Included Desk Lamp again.")
            try await browser.wait(#"#accessories .tile"#, text: "Desk Lamp")
        } catch {
            Issue.record("\(error)\n\(await browser.diagnosis())\n--- hap2mqtt ---\n\(live.gateway.log.suffix(3000))")
        }
        await browser.quit()
        await live.stop()
    }

    @Test(
        "200 slow connections from one address: the page still loads in the browser within 2 s and MQTT keeps going"
    )
    func slowConnections() async throws {
        let (live, url) = try await Self.start()
        let browser = try await Browser.start()
        let port = try #require(UInt16(url.split(separator: ":").last?.filter(\.isNumber) ?? ""))
        let slow = await SlowHTTPClients.open(count: 200, port: port, from: "127.0.0.2")
        do {
            try await eventually("the connections past the per-client limit are closed") { slow.stillOpen() <= 12 }
            let started = ContinuousClock.now
            try await signIn(browser, url)
            let took = ContinuousClock.now - started
            #expect(took < .seconds(2), "the page took \(took)")
            try await live.accessory.setValue(accessory: "Light", characteristic: "On", value: .bool(true))
            try await live.waitFor("hap2mqtt/light/lightbulb/on", "true")
            await slow.trickle()
            try await eventually("the request deadline ends the slow connections", timeout: .seconds(25)) {
                await slow.trickle()
                return slow.stillOpen() == 0
            }
        } catch {
            Issue.record("\(error)\n\(await browser.diagnosis())\n--- hap2mqtt ---\n\(live.gateway.log.suffix(3000))")
        }
        slow.close()
        await browser.quit()
        await live.stop()
    }

    @Test(
        "wrong tokens in the form: after three the page says to wait; SIGHUP with a new token file ends the session; sign out"
    )
    func guessingAndTokenReload() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("token-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tokenFile = directory.appendingPathComponent("token").path
        try TestFile.write(Self.token + "\n", to: URL(fileURLWithPath: tokenFile), mode: 0o600)
        let (live, url) = try await Self.start(token: "auth_token_file: \(tokenFile)")
        let browser = try await Browser.start()
        do {
            try await browser.open(url)
            // Each wrong token past the third doubles the wait, so one of these lands inside it.
            var told = false
            for guess in 0..<8 where !told {
                try await browser.type("#token", "wrong-guess-\(guess)", enter: true)
                let problem = try await browser.wait(".problem")
                told = problem.contains("too many wrong tokens from this address; try again in")
                #expect(told || problem.contains("That token is not right."), "\(problem)")
            }
            #expect(told)
            try await eventually("the wait is over", timeout: .seconds(300)) {
                try await browser.type("#token", Self.token, enter: true)
                return (try? await browser.wait("#accessories .accessory", text: "Light", timeout: 2)) != nil
            }
            try await eventually("the log counts the wrong tokens with the address") {
                live.gateway.log.contains("login tries refused (a wrong token, or too soon after one): 127.0.0.1")
            }
            #expect(!live.gateway.log.contains("wrong-guess-"))

            let newToken = "the-new-token-after-sighup-77"
            try TestFile.write(newToken + "\n", to: URL(fileURLWithPath: tokenFile), mode: 0o600)
            try #require(kill(try #require(live.gateway.processIdentifier), SIGHUP) == 0)
            try await eventually("the reload is logged, naming the token") {
                live.gateway.log.contains("the token changed; every session of the old one has ended")
                    && live.gateway.log.contains("reloaded the configuration: applied frontend.auth_token")
            }
            try await browser.open(url)
            try await browser.wait("#token")
            try await browser.type("#token", Self.token, enter: true)
            try await browser.wait(".problem", text: "That token is not right.")
            try await browser.type("#token", newToken, enter: true)
            try await browser.wait("#accessories .accessory", text: "Light")
            try await browser.click("#sign-out")
            try await browser.wait("#token")
            try await browser.open(url + "#/accessory/light")
            try await browser.wait("#token")
            #expect(!live.gateway.log.contains(newToken))
        } catch {
            Issue.record("\(error)\n\(await browser.diagnosis())\n--- hap2mqtt ---\n\(live.gateway.log.suffix(3000))")
        }
        await browser.quit()
        await live.stop()
    }

    @Test("the scenes page recalls a scene and switches a group, and says how each went")
    func scenesPage() async throws {
        let (live, url) = try await Self.start()
        let browser = try await Browser.start()
        do {
            for (command, payload) in [
                ("scene_store", #"{"name":"Evening","values":{"light":{"lightbulb":{"on":true,"brightness":40}}}}"#),
                ("group_add", #"{"name":"Lights","members":["light"]}"#),
            ] {
                await live.observer.clear()
                try await live.publish("hap2mqtt/bridge/request/\(command)", payload)
                let answer = try await live.next(on: "hap2mqtt/bridge/response/\(command)")
                #expect(answer.payloadString?.hasPrefix(#"{"status":"ok""#) == true, "\(answer.payloadString ?? "")")
            }
            try await signIn(browser, url)
            try await browser.click(#"nav a[data-nav="scenes"]"#)
            try await browser.wait(#"#scenes [data-scene="evening"]"#, text: "Evening")
            try await browser.click(#"[data-recall="evening"]"#)
            try await browser.wait("#scenes-status .notice.ok", text: "Recalled evening.")
            #expect(try await live.accessory.value(accessory: "Light", characteristic: "Brightness") == .int(40))
            try await browser.wait(#"[data-group-state="lights"]"#, text: "on")
            try await browser.click(#"[data-group="lights"] [data-group-command="off"]"#)
            try await browser.wait(#"[data-group-state="lights"]"#, text: "off")
            #expect(try await live.accessory.value(accessory: "Light", characteristic: "On") == .bool(false))
        } catch {
            Issue.record("\(error)\n\(await browser.diagnosis())\n--- hap2mqtt ---\n\(live.gateway.log.suffix(3000))")
        }
        await browser.quit()
        await live.stop()
    }

    private func signIn(_ browser: Browser, _ url: String) async throws {
        try await browser.open(url)
        try await browser.type("#token", Self.token, enter: true)
        try await browser.wait("#accessories .accessory", text: "Light")
    }
}
