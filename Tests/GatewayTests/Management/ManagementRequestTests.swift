import Gateway
import HAP2MQTTTesting
import HomeModel
import HomeStore
import JSON
import MQTT
import Testing

@Suite("Bridge requests pair and unpair, on the recording client")
struct ManagementRequestTests {
    static let code = "031-45-154"

    /// A gateway harness whose management has `backend`.
    func withManagement(_ backend: FakeAccessoryPairing, _ body: (GatewayHarness) async throws -> Void) async throws {
        let management = Management(pairing: backend, logger: LogCapture().logger(label: "management"))
        try await withGatewayHarness(management: management) { h in
            try await h.waitUntilOnline()
            try await body(h)
        }
    }

    /// Sends `payload` to `bridge/request/<command>` and waits for the answer.
    func request(_ h: GatewayHarness, _ command: String, _ payload: String) async throws -> [String: Any] {
        let mark = h.mqtt.published.count
        try await h.send("hap2mqtt/bridge/request/\(command)", payload)
        return try #require(jsonObject(try await h.waitFor(topic: "hap2mqtt/bridge/response/\(command)", after: mark)))
    }

    /// Every payload published and every log line, for the setup code.
    func expectCodeNowhere(_ h: GatewayHarness) {
        for message in h.mqtt.published {
            #expect(message.payloadString?.contains(Self.code) != true, "\(message.topic)")
        }
        for line in h.log.lines { #expect(!line.contains(Self.code), "\(line)") }
    }

    @Test("pair answers with what was paired and the transaction, never the code")
    func pair() async throws {
        let backend = FakeAccessoryPairing()
        try await withManagement(backend) { h in
            let answer = try await request(
                h, "pair", #"{"host":"10.0.0.9","port":51826,"code":"\#(Self.code)","name":"Desk","transaction":3}"#)
            #expect(answer["status"] as? String == "ok")
            #expect(answer["transaction"] as? Int == 3)
            let data = try #require(answer["data"] as? [String: Any])
            #expect(data["id"] as? String == "AA:BB:CC:DD:EE:FF")
            #expect(data["name"] as? String == "Desk")
            #expect(data["port"] as? Int == 51826)
            #expect(data["replaced"] as? Bool == false)
            #expect(backend.codes == [Self.code])
            expectCodeNowhere(h)
        }
    }

    @Test("pair refuses bad input with a clear error and nothing reaches the backend")
    func pairRefusals() async throws {
        let backend = FakeAccessoryPairing()
        try await withManagement(backend) { h in
            let missing = try await request(h, "pair", #"{"host":"10.0.0.9","port":51826}"#)
            #expect(missing["status"] as? String == "error")
            #expect(missing["error"] as? String == "give the accessory's setup code (XXX-XX-XXX)")
            let port = try await request(h, "pair", #"{"host":"10.0.0.9","port":"x","code":"\#(Self.code)"}"#)
            #expect(port["error"] as? String == #""port" must be a number from 1 to 65535"#)
            let code = try await request(h, "pair", #"{"host":"10.0.0.9","port":1,"code":31245154}"#)
            #expect(code["error"] as? String == #""code" must be a string"#)
            let nobody = try await request(h, "pair", #"{"code":"\#(Self.code)"}"#)
            #expect(
                nobody["error"] as? String == "name the accessory by its id (as discovered), or by its host and port")
            let notJSON = try await request(h, "pair", #"{"code":"\#(Self.code)""#)
            #expect(
                notJSON["error"] as? String
                    == "the request must be a JSON object: invalid JSON at byte 20: the text ends in the middle of a value"
            )
            // Where the JSON broke, never the byte there: it could be a digit of the code.
            let bare = try await request(h, "pair", #"{"host":"10.0.0.9","port":1,"code":"031-45-154" 7}"#)
            let error = try #require(bare["error"] as? String)
            #expect(error.hasPrefix("the request must be a JSON object: invalid JSON at byte 48: expected"), "\(error)")
            #expect(error.hasSuffix(" there") && !error.contains("7'"), "\(error)")
            #expect(backend.pairCount == 0)
            // Logged as every refused command is (once a minute per topic), without the payload.
            #expect(
                h.log.records(
                    .info, containing: "refused hap2mqtt/bridge/request/pair: give the accessory's setup code"
                )
                .count == 1, "\(h.log.lines)")
            expectCodeNowhere(h)
        }
    }

    @Test(
        "pairing requests refuse a bad key, a missing field or a wrong type with a clear error and nothing reaches the backend; a good one goes by the accessory server's id"
    )
    func controllerPairingRequests() async throws {
        let backend = FakeAccessoryPairing()
        let key = String(repeating: "ab", count: 32)
        try await withManagement(backend) { h in
            let refusals: [(String, String, String)] = [
                (
                    "add_pairing", #"{"accessory":"kitchen_lamp","pairing_id":"s","public_key":"abcd"}"#,
                    "the controller's public key must be 32 bytes (Ed25519), written as 64 hex digits or as base64; this one is 2 bytes"
                ),
                (
                    "add_pairing",
                    #"{"accessory":"kitchen_lamp","pairing_id":"s","public_key":"\#(key)","admin":"yes"}"#,
                    #""admin" must be true or false"#
                ),
                (
                    "add_pairing", #"{"accessory":"kitchen_lamp","pairing_id":"s"}"#,
                    #"give the controller's Ed25519 public key: {"accessory":"<slug, id or pairing name>","pairing_id":"…","public_key":"<64 hex digits or base64>","admin":false}"#
                ),
                (
                    "remove_pairing", #"{"accessory":"kitchen_lamp","pairing_id":7}"#,
                    #"give the controller's pairing id: {"accessory":"<slug, id or pairing name>","pairing_id":"…"}"#
                ),
                (
                    "list_pairings", #"{"accessory":""}"#,
                    #"name the accessory: {"accessory":"<slug, id or pairing name>"}"#
                ),
            ]
            for (command, payload, error) in refusals {
                let answer = try await request(h, command, payload)
                #expect(answer["error"] as? String == error, "\(payload)")
            }
            #expect(backend.controllerChanges.isEmpty)
            let added = try await request(
                h, "add_pairing",
                #"{"accessory":"kitchen_lamp","pairing_id":"s","public_key":"\#(key)","transaction":"t"}"#)
            #expect(added["status"] as? String == "ok" && added["transaction"] as? String == "t", "\(added)")
            #expect(backend.controllerChanges == ["add s \(GatewayFixture.id(2).serverID)"])
        }
    }

    @Test("a refused rename and an unknown request are answered and logged")
    func otherRefusalsLogged() async throws {
        try await withManagement(FakeAccessoryPairing()) { h in
            let rename = try await request(h, "rename", #"{"accessory":"nobody","to":"x"}"#)
            #expect(rename["error"] as? String == "no accessory 'nobody'; see bridge/accessories")
            _ = try await h.log.waitFor(
                .info, containing: "refused hap2mqtt/bridge/request/rename: no accessory 'nobody'")
            let deep = try await request(h, "rename", String(repeating: "[", count: 200))
            #expect(
                (deep["error"] as? String)?.hasSuffix("arrays and objects nested deeper than 128 levels") == true,
                "\(deep)")
            let unknown = try await request(h, "bogus", "{}")
            #expect((unknown["error"] as? String)?.hasPrefix("unknown request 'bogus'") == true)
            _ = try await h.log.waitFor(.info, containing: "refused hap2mqtt/bridge/request/bogus: unknown request")
        }
    }

    @Test("a backend failure is answered with its line, and commands are carried out while a pair runs")
    func failureAndConcurrency() async throws {
        let backend = FakeAccessoryPairing()
        backend.hold()
        try await withManagement(backend) { h in
            let mark = h.mqtt.published.count
            try await h.send(
                "hap2mqtt/bridge/request/pair", #"{"host":"10.0.0.9","port":51826,"code":"\#(Self.code)"}"#)
            try await eventually("the pair reaches the backend") { backend.pairCount == 1 }
            // The gateway goes on while pair-setup runs.
            #expect(
                try await h.set("kitchen_lamp/lightbulb/on", "true").payloadString == #"{"status":"ok","value":true}"#)
            let busy = try await request(h, "pair", #"{"host":"10.0.0.9","port":51826,"code":"\#(Self.code)"}"#)
            #expect(
                busy["error"] as? String
                    == "another pairing is under way (with 10.0.0.9:51826): try again when it has finished")
            backend.fail(with: .wrongSetupCode)
            backend.release()
            let failed = try #require(
                jsonObject(
                    try await h.waitFor(topic: "hap2mqtt/bridge/response/pair", after: mark) {
                        jsonObject($0)?["error"] as? String != busy["error"] as? String
                    }))
            #expect(failed["status"] as? String == "error")
            #expect(failed["error"] as? String == "wrong setup code: check the 8-digit code on the accessory")
            _ = try await h.log.waitFor(.warning, containing: "bridge/request/pair failed: wrong setup code")
            expectCodeNowhere(h)
        }
    }

    @Test("unpair by slug names the accessory's server to the backend")
    func unpairBySlug() async throws {
        let backend = FakeAccessoryPairing()
        try await withManagement(backend) { h in
            let answer = try await request(h, "unpair", #"{"accessory":"kitchen_lamp","force":true}"#)
            #expect(answer["status"] as? String == "ok", "\(answer)")
            let data = try #require(answer["data"] as? [String: Any])
            #expect(data["outcome"] as? String == "removed_here_only")
            #expect(data["reason"] as? String == "cannot reach it")
            #expect(backend.unpairs.map(\.0) == [GatewayFixture.serverID])
            #expect(backend.unpairs.map(\.1) == [true])
            let bad = try await request(h, "unpair", #"{"accessory":"kitchen_lamp","force":"yes"}"#)
            #expect(bad["error"] as? String == #""force" must be true or false"#)
            let none = try await request(h, "unpair", #"{}"#)
            #expect((none["error"] as? String)?.hasPrefix("name the accessory") == true)
        }
    }

    @Test("a retained pair request is not carried out, and is cleared from the broker")
    func retainedRequest() async throws {
        let backend = FakeAccessoryPairing()
        try await withManagement(backend) { h in
            let mark = h.mqtt.published.count
            try await h.send(
                "hap2mqtt/bridge/request/pair", #"{"host":"10.0.0.9","port":51826,"code":"\#(Self.code)"}"#,
                retain: true)
            let cleared = try await h.waitFor(topic: "hap2mqtt/bridge/request/pair", after: mark)
            #expect(cleared.retain && cleared.payload.isEmpty)
            _ = try await h.log.waitFor(
                .warning, containing: "ignored a retained command on hap2mqtt/bridge/request/pair and cleared it")
            #expect(backend.pairCount == 0)
            expectCodeNowhere(h)
        }
    }

    @Test("bridge/discovered is retained before bridge/state says online, once per list, and follows the list")
    func discovered() async throws {
        let discovery = FakeAccessoryDiscovery()
        let lamp = DiscoveredAccessory(
            id: "AA:BB:CC:DD:EE:01", name: "Desk \"Lamp\"", model: nil, category: .lightbulb,
            addresses: ["10.0.0.9", "fe80::1"],
            port: 51826, pairedElsewhere: true)
        discovery.set([lamp])
        let management = Management(
            pairing: FakeAccessoryPairing(), discovery: discovery, logger: LogCapture().logger(label: "management"))
        #expect(await management.discovered() == [lamp])
        try await withGatewayHarness(management: management) { h in
            try await h.waitUntilOnline()
            let topics = h.mqtt.published.map(\.topic)
            let listed = try #require(topics.firstIndex(of: "hap2mqtt/bridge/discovered"), "\(topics)")
            let online = try #require(topics.firstIndex(of: "hap2mqtt/bridge/state"))
            #expect(listed < online, "online says every retained topic is there")
            let first = try #require(h.mqtt.retained("hap2mqtt/bridge/discovered"))
            #expect(
                first.payloadString
                    == #"[{"id":"AA:BB:CC:DD:EE:01","name":"Desk \"Lamp\"","model":null,"category":"lightbulb","address":"10.0.0.9","addresses":["10.0.0.9","fe80::1"],"port":51826,"paired_elsewhere":true}]"#
            )
            let mark = h.mqtt.published.count
            discovery.set([])
            _ = try await h.waitFor(topic: "hap2mqtt/bridge/discovered", after: mark)
            #expect(h.mqtt.retained("hap2mqtt/bridge/discovered")?.payloadString == "[]")
            // The follower's stream starts with the list published before online: it was not sent again.
            #expect(
                h.mqtt.published.filter { $0.topic == "hap2mqtt/bridge/discovered" }.compactMap(\.payloadString).map {
                    $0 == "[]"
                } == [false, true])
        }
    }

    @Test("without discovery, a bridge/discovered list left on the broker is cleared after a connection")
    func staleDiscoveredCleared() async throws {
        let management = Management(pairing: FakeAccessoryPairing(), logger: LogCapture().logger(label: "management"))
        try await withGatewayHarness(management: management) { h in
            try await h.waitUntilOnline()
            try h.mqtt.publish([
                MQTTMessage(topic: "hap2mqtt/bridge/discovered", string: "[]", qos: .atLeastOnce, retain: true)
            ])
            await h.mqtt.reconnect()
            try await eventually("the stale list cleared") { h.mqtt.retained("hap2mqtt/bridge/discovered") == nil }
            #expect(h.mqtt.retained("hap2mqtt/bridge/health") != nil)
        }
    }

    @Test("health_check answers healthy and publishes bridge/health with the accessory server's counts")
    func healthCheck() async throws {
        let management = Management(pairing: FakeAccessoryPairing(), logger: LogCapture().logger(label: "management"))
        try await withGatewayHarness(management: management) { h in
            try await h.waitUntilOnline()
            #expect(
                try await h.set("kitchen_lamp/lightbulb/on", "true").payloadString == #"{"status":"ok","value":true}"#)
            let mark = h.mqtt.published.count
            let answer = try await request(h, "health_check", "{}")
            #expect(answer["status"] as? String == "ok")
            #expect((answer["data"] as? [String: Any])?["healthy"] as? Bool == true)
            let health = try #require(jsonObject(try await h.waitFor(topic: "hap2mqtt/bridge/health", after: mark)))
            #expect((health["mqtt"] as? [String: Any])?["sent"] as? Int ?? 0 > 0)
            let servers = try #require(health["accessory_servers"] as? [[String: Any]])
            #expect(servers.count == 1)
            #expect(servers.first?["id"] as? String == "memory")
            #expect(servers.first?["reachable"] as? Bool == true)
            #expect(servers.first?["writes"] as? Int == 1)
            #expect(servers.first?["failed_writes"] as? Int == 0)
            #expect(servers.first?["accessories"] as? Int == 4)
            #expect(await management.healthy())
            let json = try await management.health()
            #expect(jsonObject(json)?["accessory_servers"] != nil)
        }
        await #expect(
            throws: ManagementError.notRunning("the health of the gateway is known only while hap2mqtt run runs")
        ) {
            try await Management(pairing: FakeAccessoryPairing(), logger: LogCapture().logger(label: "m")).health()
        }
    }

    @Test("refresh takes up what changed on the accessory server: a removed accessory's topics are cleared")
    func refresh() async throws {
        let management = Management(pairing: FakeAccessoryPairing(), logger: LogCapture().logger(label: "management"))
        try await withGatewayHarness(management: management) { h in
            try await h.waitUntilOnline()
            h.provider.replaceAccessories(GatewayFixture.accessories().filter { $0.aid != 5 })
            let answer = try await request(h, "refresh", #"{"accessory":"kitchen_lamp"}"#)
            #expect(answer["status"] as? String == "ok", "\(answer)")
            #expect((answer["data"] as? [String: Any])?["accessory_servers"] as? [String] == ["memory"])
            try await eventually("the porch button's topics cleared") {
                h.mqtt.retained(under: "hap2mqtt/porch_button/#").isEmpty
            }
            let unknown = try await request(h, "refresh", #"{"accessory":"nowhere"}"#)
            #expect(unknown["error"] as? String == "no accessory 'nowhere'; see bridge/accessories")
            let all = try await request(h, "refresh", "{}")
            #expect(all["status"] as? String == "ok")
        }
        await #expect(throws: ManagementError.notRunning("refresh needs the running gateway (hap2mqtt run)")) {
            try await Management(pairing: FakeAccessoryPairing(), logger: LogCapture().logger(label: "m")).refresh(nil)
        }
    }

    @Test("without management, pair is answered with an error")
    func withoutManagement() async throws {
        try await withGatewayHarness { h in
            try await h.waitUntilOnline()
            let answer = try await request(h, "pair", #"{"host":"10.0.0.9","port":1,"code":"\#(Self.code)"}"#)
            #expect(answer["error"] as? String == "'pair' is not available: this gateway was started without pairing")
        }
    }

    @Test("the log shows a request's answer, but of a backup only the archive's size, wherever it was asked")
    func loggedAnswer() {
        let options: JSONValue = .object(["accessory": "lamp", "from": "old_lamp"])
        #expect(Gateway.loggedAnswer("options", options) == #"{"accessory":"lamp","from":"old_lamp"}"#)
        let backup: JSONValue = .object(["archive": "c2VjcmV0IGtleXM=", "bytes": 11])
        #expect(Gateway.loggedAnswer("backup", backup) == "an archive of 11 bytes")
    }
}
