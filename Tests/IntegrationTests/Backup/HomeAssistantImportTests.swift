import Foundation
import HAP2MQTTTesting
import Testing

/// `hap2mqtt import --home-assistant PATH` with a real HAP-python accessory paired by the real aiohomekit
/// 4.0.1 (Tests/Fixtures/aiohomekit_pairing.py, as Home Assistant's HomeKit Controller pairs), its pairing
/// data stored as Home Assistant stores a config entry: the real binary takes the accessory over without a
/// reset, and aiohomekit still reaches it after.
@Suite("hap2mqtt import from Home Assistant, with a real accessory paired by aiohomekit")
struct HomeAssistantImportTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/aiohomekit_pairing.py").path

    @Test("IP entry taken over with hap2mqtt's own pairing, BLE and Thread skipped, Home Assistant's file untouched")
    func importFromHomeAssistant() async throws {
        let broker = try await MosquittoBroker()
        let accessory = try await HAPPythonAccessory.start()
        let gateway = try GatewayProcess(brokerURL: broker.url)
        let pairingData = gateway.directory.appendingPathComponent("aiohomekit-pairing.json")
        let paired = try await ExternalTool.run(
            try HAPPythonAccessory.python(),
            [
                Self.script, "pair", "--port", String(accessory.port), "--code", accessory.setupCode, "--out",
                pairingData.path,
            ])
        #expect(paired.contains("paired"), "\(paired)")
        let data = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: pairingData)) as? [String: Any])
        let secret = try #require(data["iOSDeviceLTSK"] as? String)
        let accessoryID = try #require(data["AccessoryPairingID"] as? String)

        // Home Assistant's configuration folder, with the entry as its HomeKit Controller saves it.
        let homeAssistant = gateway.directory.appendingPathComponent("homeassistant")
        let storage = homeAssistant.appendingPathComponent(".storage")
        try FileManager.default.createDirectory(at: storage, withIntermediateDirectories: true)
        let entries: [[String: Any]] = [
            Self.entry("homekit_controller", "hap2mqtt test bridge", data),
            Self.entry("mqtt", "Mosquitto", ["broker": "127.0.0.1"]),
            Self.entry(
                "homekit_controller", "Hallway sensor",
                [
                    "AccessoryPairingID": "11:22:33:44:55:66", "AccessoryAddress": "AA:BB:CC:DD:EE:FF",
                    "Connection": "BLE",
                ]),
            Self.entry(
                "homekit_controller", "Nanoleaf strip",
                [
                    "AccessoryPairingID": "22:33:44:55:66:77", "AccessoryIP": "fd00::1", "AccessoryPort": 5683,
                    "Connection": "CoAP",
                ]),
        ]
        let store: [String: Any] = [
            "version": 1, "minor_version": 2, "key": "core.config_entries", "data": ["entries": entries],
        ]
        let configEntries = storage.appendingPathComponent("core.config_entries")
        try JSONSerialization.data(withJSONObject: store).write(to: configEntries)
        let before = try Data(contentsOf: configEntries)
        let modified = try FileManager.default.attributesOfItem(atPath: configEntries.path)[.modificationDate] as? Date

        let imported = try await gateway.runCommand(["import", "--home-assistant", homeAssistant.path])
        #expect(imported.status == 0, "\(imported.output)")
        // Standard output's lines; the rest of the output is the log (standard error, debug level here).
        let lines = imported.output.split(separator: "\n").map(String.init).filter {
            $0.hasPrefix("imported ") || $0.hasPrefix("skipped ") || $0.hasPrefix("hap2mqtt: ")
        }
        #expect(lines.count == 3, "\(imported.output)")
        #expect(
            lines.contains {
                $0.hasPrefix(
                    #"imported "hap2mqtt test bridge" (\#(accessoryID)) at 127.0.0.1:\#(accessory.port) with hap2mqtt's own pairing"#
                )
                    && $0.contains("delete its HomeKit Controller entry")
            }, "\(imported.output)")
        #expect(
            lines.contains(
                #"skipped "Hallway sensor" (11:22:33:44:55:66): a Bluetooth (BLE) accessory: hap2mqtt speaks HAP over IP only"#
            ))
        #expect(
            lines.contains(
                #"skipped "Nanoleaf strip" (22:33:44:55:66:77): a Thread accessory (HAP over CoAP): hap2mqtt speaks HAP over IP only"#
            ))
        #expect(!imported.output.contains(secret), "a secret key in the output")
        #expect(try Data(contentsOf: configEntries) == before, "Home Assistant's file was changed")
        #expect(
            try FileManager.default.attributesOfItem(atPath: configEntries.path)[.modificationDate] as? Date == modified
        )

        let pairingFile = gateway.stateDirectory.appendingPathComponent(
            "pairing-\(accessoryID.uppercased().replacingOccurrences(of: ":", with: "-")).json")
        let mode = try FileManager.default.attributesOfItem(atPath: pairingFile.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        let saved = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: pairingFile)) as? [String: Any])
        #expect(saved["controllerLTSK"] == nil, "hap2mqtt's own pairing needs no other controller's key")
        #expect(saved["controllerPairingID"] as? String != data["iOSPairingId"] as? String)

        // The gateway reads and writes the accessory with its own pairing.
        let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/#"])
        let live = LiveGateway(broker: broker, accessory: accessory, gateway: gateway, observer: observer)
        try await live.startAndExpectEveryAccessoryReachable()
        #expect(!gateway.log.contains(secret), "a secret key in the log")

        // Home Assistant's pairing still works beside hap2mqtt's.
        let aliased = gateway.directory.appendingPathComponent("aiohomekit-aliased.json")
        try JSONSerialization.data(withJSONObject: ["ha": data]).write(to: aliased)
        let check = try await ExternalTool.run(
            try HAPPythonAccessory.python(), [Self.script, "check", "--file", aliased.path, "--alias", "ha"])
        #expect(check.contains(#""on": true"#), "\(check)")

        // Again: nothing changes.
        let again = try await gateway.runCommand(["import", "--home-assistant", configEntries.path])
        #expect(again.status == 0 && again.output.contains("is paired here already"), "\(again.output)")
        await live.stop()
    }

    @Test(
        "aiohomekit's file while the accessory is off: the shared identity works; imported again later, hap2mqtt's own")
    func importWhileUnreachable() async throws {
        let broker = try await MosquittoBroker()
        let accessory = try await HAPPythonAccessory.start()
        let gateway = try GatewayProcess(brokerURL: broker.url)
        let pairingData = gateway.directory.appendingPathComponent("aiohomekit-pairing.json")
        _ = try await ExternalTool.run(
            try HAPPythonAccessory.python(),
            [
                Self.script, "pair", "--port", String(accessory.port), "--code", accessory.setupCode, "--out",
                pairingData.path,
            ])
        let data = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: pairingData)) as? [String: Any])
        let accessoryID = try #require(data["AccessoryPairingID"] as? String)
        let file = gateway.directory.appendingPathComponent("pairing.json")
        try JSONSerialization.data(withJSONObject: ["Bridge": data]).write(to: file)
        let pairingFile = gateway.stateDirectory.appendingPathComponent(
            "pairing-\(accessoryID.uppercased().replacingOccurrences(of: ":", with: "-")).json")

        await accessory.stop()
        let shared = try await gateway.runCommand(["import", "--aiohomekit", file.path])
        #expect(shared.status == 0, "\(shared.output)")
        #expect(shared.output.contains(#"imported "Bridge" (\#(accessoryID))"#), "\(shared.output)")
        #expect(shared.output.contains("sharing aiohomekit's controller identity"), "\(shared.output)")
        #expect(!shared.output.contains(try #require(data["iOSDeviceLTSK"] as? String)))
        let saved = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: pairingFile)) as? [String: Any])
        #expect(saved["controllerPairingID"] as? String == data["iOSPairingId"] as? String)
        #expect(saved["controllerLTSK"] != nil)

        // The gateway pair-verifies with the pairing's own controller keys.
        try await accessory.start()
        let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/#"])
        let live = LiveGateway(broker: broker, accessory: accessory, gateway: gateway, observer: observer)
        try gateway.start()
        try await live.waitUntilOnline()
        try await live.waitFor("hap2mqtt/light/availability", "online", timeout: .seconds(30))
        try await live.publish("hap2mqtt/light/lightbulb/on/set", "true")
        let result = try await live.next(on: "hap2mqtt/light/lightbulb/on/set/result")
        #expect(result.payloadString == #"{"status":"ok","value":true}"#)

        // Imported again, now that the accessory answers: hap2mqtt's own pairing, while run runs.
        let own = try await gateway.runCommand(["import", "--aiohomekit", file.path])
        #expect(own.output.contains("with hap2mqtt's own pairing"), "\(own.output)")
        let upgraded = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: pairingFile)) as? [String: Any])
        #expect(upgraded["controllerLTSK"] == nil)
        #expect(upgraded["controllerPairingID"] as? String != data["iOSPairingId"] as? String)
        try await eventually("a write with hap2mqtt's own pairing", timeout: .seconds(60)) {
            try? await live.publish("hap2mqtt/light/lightbulb/on/set", "false")
            let ok = await live.observer.firstMessage(
                on: "hap2mqtt/light/lightbulb/on/set/result", within: .seconds(5)
            ) { $0.payloadString == #"{"status":"ok","value":false}"# }
            return ok != nil
        }
        await live.stop()
    }

    @Test("a source that is missing, not JSON, or not Home Assistant's: one line, status 1, nothing written")
    func badSources() async throws {
        let gateway = try GatewayProcess(brokerURL: "mqtt://127.0.0.1:1")
        let notJSON = gateway.directory.appendingPathComponent("core.config_entries")
        try Data("not json".utf8).write(to: notJSON)
        let other = gateway.directory.appendingPathComponent("other.json")
        try Data(#"{"key":"core.device_registry","data":{}}"#.utf8).write(to: other)
        let empty = gateway.directory.appendingPathComponent("empty.json")
        try Data("{}".utf8).write(to: empty)
        let cases: [([String], String)] = [
            (["import", "--home-assistant", gateway.directory.appendingPathComponent("missing").path], "cannot read"),
            (["import", "--home-assistant", notJSON.path], "it is not JSON"),
            (["import", "--home-assistant", other.path], "it is not Home Assistant's core.config_entries"),
            (["import", "--aiohomekit", other.path], "it is not aiohomekit's pairing file"),
            (["import", "--aiohomekit", empty.path], "holds no HomeKit pairing"),
        ]
        for (arguments, expected) in cases {
            let run = try await gateway.runCommand(arguments)
            #expect(run.status == 1 && run.output.contains(expected), "\(arguments): \(run.output)")
            #expect(run.output.split(separator: "\n").count == 1, "\(arguments): \(run.output)")
        }
        #expect(!FileManager.default.fileExists(atPath: gateway.stateDirectory.path), "the state directory was made")
    }

    /// A config entry as Home Assistant 2024's `ConfigEntry.as_dict` writes it.
    static func entry(_ domain: String, _ title: String, _ data: [String: Any]) -> [String: Any] {
        [
            "entry_id": UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased(), "version": 1,
            "minor_version": 1, "domain": domain, "title": title, "data": data, "options": [String: Any](),
            "pref_disable_new_entities": false, "pref_disable_polling": false, "source": "zeroconf",
            "unique_id": data["AccessoryPairingID"] ?? NSNull(), "disabled_by": NSNull(),
        ]
    }
}
