import Foundation
import Gateway
import HAP2MQTTTesting
import HomeModel
import HomeStore
import MQTT
import SystemSupport
import Testing

@Suite("Bridge request options, on the recording client")
struct OptionsRequestTests {
    /// A gateway harness whose management saves options in a fresh state directory.
    /// - Parameters:
    ///   - body: gets the harness, the state directory and the management's log.
    ///   - prepare: runs before the gateway starts (to put an options file in place).
    func withOptions(
        _ body: (GatewayHarness, StateDirectory, LogCapture) async throws -> Void,
        prepare: (StateDirectory) throws -> Void = { _ in }
    ) async throws {
        let directory = StateDirectory(
            path: FileManager.default.temporaryDirectory.appendingPathComponent("options-\(UUID().uuidString)").path)
        try directory.create()
        defer { try? FileManager.default.removeItem(atPath: directory.path) }
        try prepare(directory)
        let log = LogCapture()
        let management = Management(
            pairing: FakeAccessoryPairing(), options: AccessoryOptionsFile(directory: directory),
            logger: log.logger(label: "management"))
        try await withGatewayHarness(stateDirectory: directory, management: management) { h in
            try await h.waitUntilOnline()
            try await body(h, directory, log)
        }
    }

    /// Sends `payload` to `bridge/request/options` and waits for the answer.
    func options(_ h: GatewayHarness, _ payload: String) async throws -> [String: Any] {
        let mark = h.mqtt.published.count
        try await h.send("hap2mqtt/bridge/request/options", payload)
        return try #require(jsonObject(try await h.waitFor(topic: "hap2mqtt/bridge/response/options", after: mark)))
    }

    /// The entry of `bridge/accessories` with id `id`, as retained now.
    func listed(_ h: GatewayHarness, _ id: AccessoryID) throws -> [String: Any]? {
        let list = try #require(h.mqtt.retained("hap2mqtt/bridge/accessories")?.payload)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(list)) as? [[String: Any]])
        return entries.first { $0["id"] as? String == id.description }
    }

    @Test(
        "a name moves the accessory's topics and clears the old ones; bridge/accessories and bridge/info show the option; the file is 0600"
    )
    func nameMovesTopics() async throws {
        try await withOptions { h, directory, _ in
            let lamp = GatewayFixture.id(2)
            #expect(h.mqtt.retained("hap2mqtt/kitchen_lamp/lightbulb/on") != nil)
            let answer = try await options(
                h, #"{"accessory":"kitchen_lamp","options":{"name":"Desk Lamp"},"transaction":7}"#)
            #expect(answer["status"] as? String == "ok", "\(answer)")
            #expect(answer["transaction"] as? Int == 7)
            let data = try #require(answer["data"] as? [String: Any])
            #expect(data["accessory"] as? String == "desk_lamp")
            #expect(data["from"] as? String == "kitchen_lamp")
            #expect(data["id"] as? String == lamp.description)
            #expect((data["options"] as? [String: Any])?["name"] as? String == "Desk Lamp")
            #expect(h.mqtt.retained(under: "hap2mqtt/kitchen_lamp/#").isEmpty)
            #expect(h.mqtt.retained("hap2mqtt/kitchen_lamp") == nil)
            #expect(h.mqtt.retained("hap2mqtt/desk_lamp/lightbulb/on") != nil)
            let entry = try #require(try listed(h, lamp))
            #expect(entry["name"] as? String == "Desk Lamp")
            #expect(entry["slug"] as? String == "desk_lamp")
            #expect((entry["options"] as? [String: Any])?["name"] as? String == "Desk Lamp")
            #expect(try listed(h, GatewayFixture.id(3))?["options"] == nil)
            let infoMessage = try #require(h.mqtt.retained("hap2mqtt/bridge/info"))
            let info = try #require(jsonObject(infoMessage))
            let saved = try #require(info["options"] as? [String: Any])
            #expect((saved[lamp.description] as? [String: Any])?["name"] as? String == "Desk Lamp")
            // Commands follow the new topics.
            #expect(try await h.set("desk_lamp/lightbulb/on", "true").payloadString == #"{"status":"ok","value":true}"#)

            let file = directory.url(AccessoryOptionsFile.fileName).path
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            #expect(
                try String(contentsOfFile: file, encoding: .utf8)
                    == #"{"\#(lamp.description)":{"name":"Desk Lamp"}}"#)
        }
    }

    @Test("saved options win over the YAML file only for their keys; null removes one and the YAML value returns")
    func yamlLayers() async throws {
        try await withOptions { h, directory, _ in
            let lamp = GatewayFixture.id(2)
            var yaml = await h.store.configuration
            yaml.overrides[lamp] = AccessoryOverride(name: "Kitchen Lamp", room: "Kitchen")
            await h.store.configure(yaml)
            let office = try await options(h, #"{"accessory":"kitchen_lamp","options":{"room":"Office"}}"#)
            #expect(office["status"] as? String == "ok", "\(office)")
            #expect((office["data"] as? [String: Any])?["from"] == nil)
            try await eventually("the room in bridge/accessories") {
                try listed(h, lamp)?["room"] as? String == "Office"
            }
            #expect(try listed(h, lamp)?["name"] as? String == "Kitchen Lamp")
            #expect(await h.store.accessory(lamp)?.room == "Office")

            let back = try await options(h, #"{"accessory":"kitchen_lamp","options":{"room":null}}"#)
            #expect(back["status"] as? String == "ok", "\(back)")
            #expect(((back["data"] as? [String: Any])?["options"] as? [String: Any])?.isEmpty == true)
            try await eventually("the YAML room again") { try listed(h, lamp)?["room"] as? String == "Kitchen" }
            #expect(try listed(h, lamp)?["options"] == nil)
            #expect(
                try String(contentsOfFile: directory.url(AccessoryOptionsFile.fileName).path, encoding: .utf8) == "{}")
        }
    }

    @Test(
        "exclude clears every topic and discovery config, a /set gets a clear error; exclude false brings the accessory back"
    )
    func exclude() async throws {
        try await withOptions { h, _, _ in
            let lock = GatewayFixture.id(3)
            let node = "hap2mqtt_00_00_00_00_00_01_3"
            #expect(h.mqtt.retained(under: "homeassistant/+/\(node)/#").isEmpty == false)
            let mark = h.mqtt.published.count
            let answer = try await options(h, #"{"accessory":"front_door","options":{"exclude":true}}"#)
            #expect(answer["status"] as? String == "ok", "\(answer)")
            #expect(h.mqtt.retained(under: "hap2mqtt/front_door/#").isEmpty)
            #expect(h.mqtt.retained("hap2mqtt/front_door") == nil)
            #expect(h.mqtt.retained(under: "homeassistant/+/\(node)/#").isEmpty)
            #expect(
                configsClearedFirst(h.mqtt.published.dropFirst(mark), slug: "front_door"),
                "configs before state topics: \(h.mqtt.published.dropFirst(mark).map(\.topic))")
            #expect(try listed(h, lock) == nil)
            let removed = try await h.waitFor(topic: "hap2mqtt/bridge/event", after: mark)
            #expect(removed.payloadString?.contains(#""type":"accessory_removed""#) == true)

            let refused = try await h.set("front_door/lock_mechanism/lock_target_state", "1")
            #expect(
                jsonObject(refused)?["error"] as? String
                    == #"accessory 'front_door' is excluded by its options and takes no commands; bridge/request/options {"accessory":"front_door","options":{"exclude":false}} brings it back"#
            )
            // Requests that name it by slug or id say it is excluded, not that there is no such accessory.
            for (request, payload, error) in [
                ("identify", #"{"accessory":"front_door"}"#, "accessory 'front_door' is excluded by its options"),
                ("identify", #"{"accessory":"\#(lock)"}"#, "accessory 'front_door' is excluded by its options"),
                (
                    "rename", #"{"accessory":"kitchen_lamp","to":"front_door"}"#,
                    "cannot use 'front_door' as a name: accessory \(lock) keeps it while its options exclude it"
                ),
            ] {
                let before = h.mqtt.published.count
                try await h.send("hap2mqtt/bridge/request/\(request)", payload)
                let answer = try #require(
                    jsonObject(try await h.waitFor(topic: "hap2mqtt/bridge/response/\(request)", after: before)))
                #expect((answer["error"] as? String)?.hasPrefix(error) == true, "\(answer)")
            }
            // What the lock reports now goes nowhere.
            h.provider.changeValue(
                GatewayFixture.address(h.provider, aid: 3, .Characteristic.name), to: .string("Back Door"))
            let unchanged = try await options(h, #"{"accessory":"kitchen_lamp","options":{}}"#)
            #expect(unchanged["status"] as? String == "ok")
            #expect(h.mqtt.retained(under: "hap2mqtt/front_door/#").isEmpty)
            #expect(h.mqtt.retained(under: "hap2mqtt/back_door/#").isEmpty)

            let back = try await options(h, #"{"accessory":"front_door","options":{"exclude":false}}"#)
            #expect(back["status"] as? String == "ok", "\(back)")
            #expect(h.mqtt.retained("hap2mqtt/front_door/availability")?.payloadString == "online")
            #expect(h.mqtt.retained(under: "homeassistant/+/\(node)/#").isEmpty == false)
            #expect((try listed(h, lock)?["options"] as? [String: Any])?["exclude"] as? Bool == false)
            let accepted = try await h.set("front_door/lock_mechanism/lock_target_state", "1")
            #expect(jsonObject(accepted)?["status"] as? String == "ok", "\(accepted.payloadString ?? "")")
        }
    }

    @Test("bad requests are answered with an error and change nothing")
    func badRequests() async throws {
        try await withOptions { h, directory, _ in
            let cases: [(String, String)] = [
                (#"{"accessory":"nobody","options":{"name":"X"}}"#, "no accessory 'nobody'; see bridge/accessories"),
                (#"{"options":{"name":"X"}}"#, "name the accessory"),
                (#"{"accessory":"kitchen_lamp"}"#, "give the options as an object"),
                (
                    #"{"accessory":"kitchen_lamp","options":{"name":5}}"#,
                    #""name" must be a string, or null to remove it"#
                ),
                (#"{"accessory":"kitchen_lamp","options":{"exclude":"yes"}}"#, #""exclude" must be true or false"#),
                (
                    #"{"accessory":"kitchen_lamp","options":{"colour":"red"}}"#,
                    #"unknown option "colour"; the options are name, room, exclude"#
                ),
                (#"{"accessory":"kitchen_lamp","options":{"name":"  "}}"#, #""name" must not be empty"#),
                (
                    #"{"accessory":"kitchen_lamp","options":{"room":"Hall\u0000\n#"}}"#,
                    #""room" must not contain line breaks or other control characters"#
                ),
                (
                    #"{"accessory":"kitchen_lamp","options":{"name":"x\ny"}}"#,
                    #""name" must not contain line breaks or other control characters"#
                ),
                (#"{"accessory":"kitchen_lamp","options":{"name":"X","room":7}}"#, #""room" must be a string"#),
                (#"{"accessory":"kitchen_lamp","options""#, "the request must be a JSON object"),
            ]
            for (payload, error) in cases {
                let answer = try await options(h, payload)
                #expect(answer["status"] as? String == "error", "\(payload)")
                #expect((answer["error"] as? String)?.hasPrefix(error) == true, "\(payload): \(answer)")
            }
            #expect(h.mqtt.retained("hap2mqtt/kitchen_lamp/lightbulb/on") != nil)
            #expect(try listed(h, GatewayFixture.id(2))?["name"] as? String == "Kitchen Lamp")
            #expect(!FileManager.default.fileExists(atPath: directory.url(AccessoryOptionsFile.fileName).path))
        }
    }

    @Test("a damaged options file is logged in one line, kept as it is, and options are refused")
    func damagedFile() async throws {
        let damaged = #"{"00:00:00:00:00:01/2":{"name":"Desk"#
        try await withOptions(
            { h, directory, log in
                let answer = try await options(h, #"{"accessory":"kitchen_lamp","options":{"name":"Desk"}}"#)
                #expect(answer["status"] as? String == "error")
                let error = try #require(answer["error"] as? String)
                #expect(error.contains("options.json is damaged: it is not JSON"), "\(error)")
                #expect(error.hasSuffix("fix or remove it (it is left as it is)"))
                #expect(
                    try String(contentsOfFile: directory.url(AccessoryOptionsFile.fileName).path, encoding: .utf8)
                        == damaged)
                #expect(h.mqtt.retained("hap2mqtt/kitchen_lamp/lightbulb/on") != nil)
                let lines = log.records(.error, containing: "the saved accessory options are not applied")
                #expect(lines.count == 1)
            },
            prepare: { directory in
                try directory.write(Data(damaged.utf8), to: AccessoryOptionsFile.fileName)
            })
    }

    @Test("a damaged options file is read again by each request: once fixed it is taken, once removed it is gone")
    func damagedFileRepaired() async throws {
        let damaged = #"{"00:00:00:00:00:01/2":{"name":"Desk"#
        try await withOptions(
            { h, directory, log in
                let refused = try await options(h, #"{"accessory":"kitchen_lamp","options":{"name":"Desk"}}"#)
                #expect(refused["status"] as? String == "error", "\(refused)")
                let lamp = GatewayFixture.id(2)
                let fixed = "{\"\(lamp)\":{\"room\":\"Office\"}}"
                try directory.write(Data(fixed.utf8), to: AccessoryOptionsFile.fileName)
                let answer = try await options(h, #"{"accessory":"kitchen_lamp","options":{"exclude":false}}"#)
                #expect(answer["status"] as? String == "ok", "\(answer)")
                let saved = try #require((answer["data"] as? [String: Any])?["options"] as? [String: Any])
                #expect(saved["room"] as? String == "Office", "the fixed file's options are taken: \(saved)")
                #expect((try listed(h, lamp)?["options"] as? [String: Any])?["room"] as? String == "Office")
                #expect(log.records(.info, containing: "reads again").count == 1)

                // Damaged again, then removed: the removal is taken as no saved options.
                try directory.write(Data(damaged.utf8), to: AccessoryOptionsFile.fileName)
                let management = Management(
                    pairing: FakeAccessoryPairing(), options: AccessoryOptionsFile(directory: directory),
                    logger: log.logger(label: "second"))
                await management.attach(h.gateway)
                await #expect(throws: ManagementError.self) {
                    try await management.setOptions("kitchen_lamp", AccessoryOptionsChange(name: .set("Desk")))
                }
                try directory.remove(AccessoryOptionsFile.fileName)
                let result = try await management.setOptions("kitchen_lamp", AccessoryOptionsChange(name: .set("Desk")))
                #expect(result.options.name == "Desk")
                #expect(result.options.room == nil)
            },
            prepare: { directory in
                try directory.write(Data(damaged.utf8), to: AccessoryOptionsFile.fileName)
            })
    }

    @Test("options are refused without a running gateway")
    func notRunning() async throws {
        let management = Management(pairing: FakeAccessoryPairing(), logger: LogCapture().logger(label: "m"))
        await #expect(throws: ManagementError.notRunning("options need the running gateway (hap2mqtt run)")) {
            try await management.setOptions("lamp", AccessoryOptionsChange(name: .set("Lamp")))
        }
    }
}
