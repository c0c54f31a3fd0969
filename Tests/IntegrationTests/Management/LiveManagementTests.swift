import Foundation
import HAP2MQTTTesting
import MQTT
import Testing

/// The bridge API's management requests through the real binary, a real mosquitto and a HAP-python
/// accessory (docs/topics.md "Managing the gateway over MQTT").
@Suite("hap2mqtt run managed over MQTT: pair and unpair", .serialized)
struct LiveManagementTests {
    /// A running gateway with no pairing, the accessory, and an observer of `hap2mqtt/#`.
    struct Unpaired {
        let broker: MosquittoBroker
        let accessory: HAPPythonAccessory
        let gateway: GatewayProcess
        let observer: MQTTTestClient

        /// - Parameters:
        ///   - announced: whether the accessory announces itself over mDNS (in a namespace with its own
        ///     avahi-daemon only).
        ///   - extraYAML: more configuration (top-level keys).
        static func start(announced: Bool = false, extraYAML: String = "") async throws -> Unpaired {
            let broker = try await MosquittoBroker()
            let accessory = try await HAPPythonAccessory.start(announced: announced)
            let gateway = try GatewayProcess(brokerURL: broker.url, extraYAML: extraYAML)
            let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/#", "replies/#"])
            try gateway.start()
            _ = try await observer.waitFor(topic: "hap2mqtt/bridge/state", timeout: .seconds(60)) {
                $0.bridgeState == "online"
            }
            return Unpaired(broker: broker, accessory: accessory, gateway: gateway, observer: observer)
        }

        /// Publishes `payload` on `bridge/request/<command>` and returns the answer's JSON object.
        func request(_ command: String, _ payload: String, timeout: Duration = .seconds(60)) async throws -> [String:
            Any]
        {
            await observer.clear()
            try await observer.publish("hap2mqtt/bridge/request/\(command)", payload)
            let answer = try await observer.waitFor(topic: "hap2mqtt/bridge/response/\(command)", timeout: timeout)
            return try #require(
                (try? JSONSerialization.jsonObject(with: Data(answer.payload))) as? [String: Any],
                "\(answer.payloadString ?? "")")
        }

        /// Pairs the accessory over MQTT by host and port and waits until `slug` is online.
        func pairOverMQTT(waitingFor slug: String) async throws {
            let paired = try await request(
                "pair", #"{"host":"127.0.0.1","port":\#(accessory.port),"code":"\#(accessory.setupCode)"}"#)
            #expect(paired["status"] as? String == "ok", "\(paired)")
            _ = try await observer.waitFor(topic: "hap2mqtt/\(slug)/availability", timeout: .seconds(30)) {
                $0.payloadString == "online"
            }
        }

        /// The setup code in every form it could be written, searched in the log and every retained topic.
        func expectCodeNowhere() async throws {
            let code = accessory.setupCode
            let forms = [code, code.replacingOccurrences(of: "-", with: "")]
            let log = gateway.log
            for form in forms { #expect(!log.contains(form), "the setup code is in the log") }
            let retained = try await MQTTTestClient.retainedSnapshot(of: broker, ["#"])
            for (topic, payload) in retained {
                for form in forms { #expect(!payload.contains(form), "the setup code is retained on \(topic)") }
            }
        }

        func stop() async {
            await gateway.stop()
            await observer.disconnect()
            await accessory.stop()
            await broker.stop()
        }
    }

    @Test(
        "pair over MQTT: bad requests and a wrong code are answered with clear errors; then the accessory comes online at once"
    )
    func pair() async throws {
        let live = try await Unpaired.start()
        let port = live.accessory.port
        let code = live.accessory.setupCode

        let wrongDigits = code == "111-22-333" ? "111-22-334" : "111-22-333"
        let wrong = try await live.request(
            "pair", #"{"host":"127.0.0.1","port":\#(port),"code":"\#(wrongDigits)","transaction":"t1"}"#)
        #expect(wrong["status"] as? String == "error")
        #expect(wrong["error"] as? String == "wrong setup code: check the 8-digit code on the accessory")
        #expect(wrong["transaction"] as? String == "t1")
        let missing = try await live.request("pair", #"{"host":"127.0.0.1","port":\#(port)}"#)
        #expect(missing["error"] as? String == "give the accessory's setup code (XXX-XX-XXX)")
        let badJSON = try await live.request("pair", #"{"host":"127.0.0.1","#)
        #expect(
            (badJSON["error"] as? String)?.hasPrefix("the request must be a JSON object: invalid JSON at byte") == true)
        let unknown = try await live.request("reboot", "{}")
        #expect((unknown["error"] as? String)?.hasPrefix("unknown request 'reboot'; the requests are") == true)
        let nowhere = try await live.request("pair", #"{"host":"127.0.0.1","port":1,"code":"\#(code)"}"#)
        #expect((nowhere["error"] as? String)?.hasPrefix("cannot reach 127.0.0.1:1") == true, "\(nowhere)")

        // Retained: not carried out, and not kept by the broker.
        try await live.observer.publish(
            MQTTMessage(
                topic: "hap2mqtt/bridge/request/pair",
                string: #"{"host":"127.0.0.1","port":\#(port),"code":"\#(code)"}"#,
                qos: .atLeastOnce, retain: true))
        try await eventually("the retained request cleared", timeout: .seconds(30)) {
            (try? await MQTTTestClient.retainedSnapshot(of: live.broker, ["hap2mqtt/bridge/request/#"]))?.isEmpty
                == true
        }
        #expect(live.gateway.log.contains("ignored a retained command on hap2mqtt/bridge/request/pair and cleared it"))
        #expect(try await live.accessory.status().paired == false)

        // The answer also goes to an MQTT 5 response topic, with the correlation data.
        await live.observer.clear()
        try await live.observer.publish(
            "hap2mqtt/bridge/request/pair", #"{"host":"127.0.0.1","port":\#(port),"code":"\#(code)","name":"Desk"}"#,
            properties: MQTTProperties(responseTopic: "hap2mqtt/response/pair", correlationData: Array("c1".utf8)))
        let reply = try await live.observer.waitFor(topic: "hap2mqtt/response/pair", timeout: .seconds(60))
        #expect(reply.properties.correlationData == Array("c1".utf8))
        let answer = try #require((try? JSONSerialization.jsonObject(with: Data(reply.payload))) as? [String: Any])
        #expect(answer["status"] as? String == "ok", "\(answer)\n\(live.gateway.log.suffix(3000))")
        let data = try #require(answer["data"] as? [String: Any])
        #expect(data["name"] as? String == "Desk")
        #expect(data["id"] as? String == (try await live.accessory.status().pairingID).uppercased())
        // Taken up at once: the pairing watcher is asked right after the pair, not in its next round.
        for slug in LiveManagementTests.slugs {
            _ = try await live.observer.waitFor(topic: "hap2mqtt/\(slug)/availability", timeout: .seconds(30)) {
                $0.payloadString == "online"
            }
        }
        #expect(live.gateway.log.contains("bridge/request/pair: done"))
        try await live.expectCodeNowhere()
        await live.stop()
    }

    @Test(
        "unpair over MQTT by slug clears every topic of the accessory, bridge/health follows pair and unpair; a second unpair sent with it and an unknown accessory are clear errors"
    )
    func unpair() async throws {
        let live = try await Unpaired.start()
        try await live.pairOverMQTT(waitingFor: "light")
        let server = try await live.accessory.status().pairingID
        try await eventually("the retained bridge/health names the new accessory server", timeout: .seconds(30)) {
            let health = try? await MQTTTestClient.retainedSnapshot(of: live.broker, ["hap2mqtt/bridge/health"])
            return health?["hap2mqtt/bridge/health"]?.contains(#""id":"hap:\#(server)""#) == true
        }

        let unknown = try await live.request("unpair", #"{"accessory":"nobody"}"#)
        #expect(unknown["status"] as? String == "error")
        #expect((unknown["error"] as? String)?.hasPrefix(#"no pairing named "nobody""#) == true, "\(unknown)")

        // Both at once, by slug and by the accessory server's id: one removes the pairing, the other then
        // finds none (before, both went to the accessory, and the second was told a wrong outcome).
        await live.observer.clear()
        try await live.observer.publish("hap2mqtt/bridge/request/unpair", #"{"accessory":"light","transaction":1}"#)
        try await live.observer.publish(
            "hap2mqtt/bridge/request/unpair", #"{"accessory":"\#(server)","transaction":2}"#)
        var answers: [Int: [String: Any]] = [:]
        for transaction in [1, 2] {
            let message = try await live.observer.waitFor(topic: "hap2mqtt/bridge/response/unpair") {
                $0.payloadString?.contains(#""transaction":\#(transaction)"#) == true
            }
            answers[transaction] = try #require(
                (try? JSONSerialization.jsonObject(with: Data(message.payload))) as? [String: Any])
        }
        let ok = answers.values.filter { $0["status"] as? String == "ok" }
        #expect(ok.count == 1, "\(answers)")
        #expect((ok.first?["data"] as? [String: Any])?["outcome"] as? String == "removed", "\(answers)")
        let refused = answers.values.filter { $0["status"] as? String == "error" }
        #expect(refused.count == 1, "\(answers)")
        #expect((refused.first?["error"] as? String)?.hasPrefix("no pairing") == true, "\(answers)")
        #expect(await live.observer.messages(on: "hap2mqtt/bridge/response/unpair").count == 2)
        try await eventually("every accessory topic cleared", timeout: .seconds(30)) {
            let now = (try? await MQTTTestClient.retainedSnapshot(of: live.broker, ["hap2mqtt/#"])) ?? [:]
            // bridge/health, retained, names no accessory server that is gone (not only after 600 s).
            return now.keys.allSatisfy { $0.hasPrefix("hap2mqtt/bridge/") }
                && now["hap2mqtt/bridge/accessories"] == "[]"
                && now["hap2mqtt/bridge/health"]?.contains(#""accessory_servers":[]"#) == true
        }
        #expect(try await live.accessory.status().paired == false)
        try await live.expectCodeNowhere()
        await live.stop()
    }

    /// Two controllers' Ed25519 public keys (RFC 8032 §7.1, tests 1 and 2), the second also in base64.
    static let keyOne = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
    static let keyTwo = "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c"
    static let keyTwoBase64 = "PUAXw+hDiVqStwqnTRt+vJyYLM8uxJaMwM1V8Sr0Zgw="

    /// The pairings in an answer's `data`, by pairing id: (admin, public key, this gateway).
    static func pairings(_ answer: [String: Any]) -> [String: (admin: Bool, key: String, own: Bool)] {
        let list = (answer["data"] as? [String: Any])?["pairings"] as? [[String: Any]] ?? []
        var byID: [String: (admin: Bool, key: String, own: Bool)] = [:]
        for entry in list {
            guard let id = entry["pairing_id"] as? String else { continue }
            byID[id] = (
                entry["admin"] as? Bool ?? false, entry["public_key"] as? String ?? "",
                entry["this_gateway"] as? Bool ?? false
            )
        }
        return byID
    }

    @Test(
        "pairings over MQTT: list, add a second controller (admin or not, hex or base64 key), list it, remove it; bad requests change nothing on the accessory"
    )
    func controllerPairings() async throws {
        let live = try await Unpaired.start()
        try await live.pairOverMQTT(waitingFor: "light")

        let first = try await live.request("list_pairings", #"{"accessory":"light","transaction":1}"#)
        #expect(first["status"] as? String == "ok", "\(first)")
        #expect(first["transaction"] as? Int == 1)
        let own = Self.pairings(first)
        #expect(own.count == 1 && own.values.first?.admin == true && own.values.first?.own == true, "\(first)")
        let ownID = try #require(own.keys.first)

        // Refused before anything is sent to the accessory.
        let standby = UUID().uuidString
        let bad: [(command: String, payload: String, error: String)] = [
            (
                "add_pairing",
                #"{"accessory":"light","pairing_id":"\#(standby)","public_key":"\#(Self.keyOne.dropLast(2))"}"#,
                "the controller's public key must be 32 bytes (Ed25519), written as 64 hex digits or as base64; this one is 31 bytes"
            ),
            (
                "add_pairing", #"{"accessory":"light","pairing_id":"\#(standby)","public_key":"not a key!"}"#,
                "the controller's public key must be 32 bytes (Ed25519), written as 64 hex digits or as base64; this one is neither"
            ),
            (
                "add_pairing", #"{"accessory":"light","public_key":"\#(Self.keyOne)"}"#,
                "give the controller's pairing id"
            ),
            (
                "add_pairing", #"{"accessory":"light","pairing_id":"\#(standby)"}"#,
                "give the controller's Ed25519 public key"
            ),
            ("list_pairings", "{}", "name the accessory"),
            (
                "add_pairing", #"{"accessory":"nobody","pairing_id":"\#(standby)","public_key":"\#(Self.keyOne)"}"#,
                #"no pairing named "nobody""#
            ),
            (
                "remove_pairing", #"{"accessory":"light","pairing_id":"\#(ownID)"}"#,
                "\(ownID) is this gateway's own pairing"
            ),
            (
                "add_pairing", #"{"accessory":"light","pairing_id":"\#(ownID)","public_key":"\#(Self.keyOne)"}"#,
                "\(ownID) is this gateway's own pairing id"
            ),
        ]
        for request in bad {
            let answer = try await live.request(request.command, request.payload)
            #expect(answer["status"] as? String == "error", "\(request.payload): \(answer)")
            #expect((answer["error"] as? String)?.hasPrefix(request.error) == true, "\(request.payload): \(answer)")
        }
        let removeOwn = try await live.request("remove_pairing", #"{"accessory":"light","pairing_id":"\#(ownID)"}"#)
        #expect((removeOwn["error"] as? String)?.contains("unpair") == true, "\(removeOwn)")
        #expect(Self.pairings(try await live.request("list_pairings", #"{"accessory":"light"}"#)).count == 1)

        // A second controller, not an admin; then a third, an admin, by its base64 key.
        let added = try await live.request(
            "add_pairing",
            #"{"accessory":"light","pairing_id":"\#(standby)","public_key":"\#(Self.keyOne)","admin":false}"#)
        #expect(added["status"] as? String == "ok", "\(added)")
        let hub = UUID().uuidString
        let addedAdmin = try await live.request(
            "add_pairing",
            #"{"accessory":"light","pairing_id":"\#(hub)","public_key":"\#(Self.keyTwoBase64)","admin":true}"#)
        #expect(addedAdmin["status"] as? String == "ok", "\(addedAdmin)")
        let listed = Self.pairings(try await live.request("list_pairings", #"{"accessory":"light"}"#))
        #expect(listed.count == 3, "\(listed)")
        #expect(listed[standby]?.admin == false && listed[standby]?.key == Self.keyOne && listed[standby]?.own == false)
        #expect(listed[hub]?.admin == true && listed[hub]?.key == Self.keyTwo)
        #expect(listed[ownID]?.admin == true && listed[ownID]?.own == true)

        let removed = try await live.request("remove_pairing", #"{"accessory":"light","pairing_id":"\#(standby)"}"#)
        #expect(removed["status"] as? String == "ok", "\(removed)")
        #expect(Self.pairings(removed)[standby] == nil && Self.pairings(removed).count == 2, "\(removed)")
        _ = try await live.request("remove_pairing", #"{"accessory":"light","pairing_id":"\#(hub)"}"#)
        #expect(
            Self.pairings(try await live.request("list_pairings", #"{"accessory":"light"}"#)).keys.sorted() == [ownID])
        // Where this gateway is no admin, the accessory's own answer is the error.
        try await live.accessory.setAdmin(false)
        let refused = try await live.request("list_pairings", #"{"accessory":"light"}"#)
        #expect(
            (refused["error"] as? String)?.hasSuffix(
                "the accessory refused with an authentication error: this gateway is not an admin of it, and only an admin may list, add or remove its pairings"
            ) == true, "\(refused)")
        try await live.accessory.setAdmin(true)
        // The gateway's own session went on meanwhile.
        try await live.observer.publish("hap2mqtt/light/lightbulb/on/set", "true")
        let result = try await live.observer.waitFor(
            topic: "hap2mqtt/light/lightbulb/on/set/result", timeout: .seconds(30))
        #expect(result.payloadString == #"{"status":"ok","value":true}"#)
        await live.stop()
    }

    @Test("health_check over MQTT: healthy, and bridge/health names the accessory server with its address and counts")
    func health() async throws {
        let live = try await Unpaired.start()
        try await live.pairOverMQTT(waitingFor: "light")
        try await live.observer.publish("hap2mqtt/light/lightbulb/on/set", "true")
        _ = try await live.observer.waitFor(topic: "hap2mqtt/light/lightbulb/on/set/result", timeout: .seconds(30))
        try await live.accessory.setValue(accessory: "Light", characteristic: "Brightness", value: .int(42))
        _ = try await live.observer.waitFor(topic: "hap2mqtt/light/lightbulb/brightness", timeout: .seconds(30)) {
            $0.payloadString == "42"
        }

        let answer = try await live.request("health_check", #"{"transaction":1}"#)
        #expect((answer["data"] as? [String: Any])?["healthy"] as? Bool == true, "\(answer)")
        let message = try await live.observer.waitFor(topic: "hap2mqtt/bridge/health", timeout: .seconds(30))
        let health = try #require((try? JSONSerialization.jsonObject(with: Data(message.payload))) as? [String: Any])
        let retained = try await MQTTTestClient.retainedSnapshot(of: live.broker, ["hap2mqtt/bridge/health"])
        #expect(retained["hap2mqtt/bridge/health"] != nil, "bridge/health is retained")
        #expect((health["memory"] as? [String: Any])?["rss"] as? Int ?? 0 > 0)
        #expect((health["mqtt"] as? [String: Any])?["received"] as? Int ?? 0 >= 2)
        let server = try #require((health["accessory_servers"] as? [[String: Any]])?.first, "\(health)")
        #expect(server["connected"] as? Bool == true)
        #expect(server["address"] as? String == "127.0.0.1:\(live.accessory.port)")
        #expect(server["writes"] as? Int == 1 && server["failed_writes"] as? Int == 0)
        #expect(server["events"] as? Int ?? 0 >= 1)
        #expect(server["last_event"] is String)
        #expect(server["reconnects"] as? Int == 0)
        await live.stop()
    }

    @Test(
        "refresh over MQTT re-fetches the accessories: one removed on the bridge loses its topics, without going offline"
    )
    func refresh() async throws {
        let live = try await Unpaired.start()
        try await live.pairOverMQTT(waitingFor: "blind")
        _ = try await live.accessory.removeAccessory("Blind")
        let answer = try await live.request("refresh", #"{"accessory":"light"}"#)
        #expect(answer["status"] as? String == "ok", "\(answer)\n\(live.gateway.log.suffix(2000))")
        let servers = (answer["data"] as? [String: Any])?["accessory_servers"] as? [String]
        #expect(
            servers?.map { $0.uppercased() } == ["HAP:\(try await live.accessory.status().pairingID.uppercased())"],
            "\(answer)")
        try await eventually("the blind's topics cleared", timeout: .seconds(30)) {
            (try? await MQTTTestClient.retainedSnapshot(of: live.broker, ["hap2mqtt/blind/#"]))?.isEmpty == true
        }
        #expect(
            await live.observer.messages(on: "hap2mqtt/light/availability").allSatisfy { $0.payloadString == "online" })
        await live.stop()
    }

    /// The accessories of the HAP-python test bridge, by slug.
    static let slugs = ["hap2mqtt_test_bridge", "light", "switch", "temperature", "lock", "thermostat", "blind"]
}
