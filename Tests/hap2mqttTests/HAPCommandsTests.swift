import Foundation
import HAP2MQTTTesting
import HAPController
import HomeModel
import Testing

@testable import hap2mqtt

/// `hap2mqtt pair`, `accessories` and `unpair`, run as the built binary against a real HAP-python accessory.
@Suite("The pair, accessories and unpair commands")
struct HAPCommandsTests {
    /// A configuration whose state directory is inside `files`.
    func configuration(_ files: TemporaryFiles) throws -> String {
        try files.write("homekit:\n  state_dir: \(files.path)/data\n", to: "hap2mqtt.yaml")
    }

    @Test("pair with a wrong code fails in one line; pair, accessories with live values, and unpair then work")
    func pairListUnpair() async throws {
        let accessory = try await HAPPythonAccessory.start()
        let files = try TemporaryFiles()
        defer { files.remove() }
        let config = try configuration(files)
        let host = ["--host", "127.0.0.1", "--port", String(accessory.port)]

        let wrong = try await ExecutableTests.run(["pair"] + host + ["--code", "111-22-333", "--config", config])
        #expect(wrong.status == 1)
        #expect(wrong.output.isEmpty)
        #expect(wrong.error == "hap2mqtt: wrong setup code: check the 8-digit code on the accessory\n")

        let paired = try await ExecutableTests.run(
            ["pair"] + host + [
                "--code", accessory.setupCode, "--name", "Desk", "--config", config, "--log-level", "trace",
            ])
        let id = try await accessory.status().pairingID
        #expect(paired.status == 0)
        #expect(
            paired.output
                == "paired with \"Desk\" (accessory id \(id)) at 127.0.0.1:\(accessory.port); hap2mqtt accessories lists it\n"
        )
        for text in [paired.output, paired.error] {
            #expect(!text.contains(accessory.setupCode) && !text.contains(accessory.setupCode.filter(\.isNumber)))
        }
        let again = try await ExecutableTests.run(
            ["pair"] + host + ["--code", accessory.setupCode, "--config", config])
        #expect(again.status == 1)
        #expect(
            again.error.hasSuffix(
                "hap2mqtt: the accessory is already paired, and \"Desk\" is this controller's pairing at that address: it needs no new one (if it does not answer, unpair it and pair again)\n"
            ))

        try await accessory.setValue(accessory: "Light", characteristic: "Brightness", value: .int(63))
        try await accessory.setValue(
            accessory: "Temperature", characteristic: "CurrentTemperature", value: .float(19.5))
        let listed = try await ExecutableTests.run(["accessories", "--config", config])
        #expect(listed.status == 0)
        let lines = listed.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "Desk  \(id) at 127.0.0.1:\(accessory.port)")
        #expect(lines.contains("  accessory 2: Light (\(id)/2)"))
        #expect(lines.contains("    Lightbulb (iid 8)"))
        #expect(
            lines.contains {
                $0.contains(" 10  Brightness ") && $0.contains(" 63 % ") && $0.hasSuffix(" int     pr pw ev")
            })
        #expect(lines.contains { $0.contains(" CurrentTemperature ") && $0.contains(" 19.5 °C ") })
        #expect(
            lines.contains {
                $0.contains(" LockTargetState ") && $0.contains(" 0 (Unsecured) ") && $0.hasSuffix("pr pw ev tw")
            })
        let columns = lines.filter { $0.hasPrefix("      ") }.map {
            $0.range(of: " pr")?.lowerBound.utf16Offset(in: $0)
        }
        #expect(Set(columns.compactMap { $0 }).count == 1, "the permission column is aligned")

        let unpaired = try await ExecutableTests.run(["unpair", "desk", "--config", config])
        #expect(unpaired.status == 0)
        #expect(
            unpaired.output == "unpaired \"Desk\": the accessory and the state directory no longer hold the pairing\n")
        #expect(!(try await accessory.status().paired))
        let empty = try await ExecutableTests.run(["accessories", "--config", config])
        #expect(empty.output == "no paired accessories: pair one with hap2mqtt pair --host H --port P\n")
        await accessory.stop()
    }

    @Test(
        "pairings lists the accessory's controllers, adds a second one (not an admin) that the list then shows, and removes it; its own pairing and a bad key are refused"
    )
    func controllerPairings() async throws {
        let accessory = try await HAPPythonAccessory.start()
        let files = try TemporaryFiles()
        defer { files.remove() }
        let config = try configuration(files)
        let paired = try await ExecutableTests.run(
            [
                "pair", "--host", "127.0.0.1", "--port", String(accessory.port), "--code", accessory.setupCode,
                "--name",
                "Desk", "--config", config,
            ])
        try #require(paired.status == 0, "\(paired.error)")
        let id = try await accessory.status().pairingID

        let listed = try await ExecutableTests.run(["pairings", "Desk", "--config", config])
        #expect(listed.status == 0, "\(listed.error)")
        var lines = listed.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "\"Desk\" (\(id)) has 1 controller pairing(s):", "\(listed.output)")
        #expect(lines.count == 2 && lines[1].contains("  admin  ") && lines[1].hasSuffix("(this gateway)"))
        let own = try #require(lines.last?.split(separator: " ").first.map(String.init))

        let key = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
        let standby = UUID().uuidString
        let bad = try await ExecutableTests.run(
            ["pairings", "Desk", "--add", standby, "--key", String(key.dropLast(2)), "--config", config])
        #expect(bad.status != 0 && bad.error.contains("this one is 31 bytes"), "\(bad.error)")
        let ownRemoved = try await ExecutableTests.run(["pairings", "Desk", "--remove", own, "--config", config])
        #expect(ownRemoved.status == 1 && ownRemoved.error.contains("remove it with unpair"), "\(ownRemoved.error)")

        let added = try await ExecutableTests.run(
            ["pairings", "desk", "--add", standby, "--key", key, "--config", config])
        #expect(added.status == 0, "\(added.error)")
        lines = added.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "added \"\(standby)\"")
        #expect(lines.contains("  \(standby)  user   \(key)"), "\(added.output)")
        let again = try await ExecutableTests.run(["pairings", id, "--config", config])
        #expect(
            again.output.contains("has 2 controller pairing(s)") && again.output.contains("  \(standby)  user   \(key)")
        )

        let removed = try await ExecutableTests.run(["pairings", "Desk", "--remove", standby, "--config", config])
        #expect(removed.status == 0, "\(removed.error)")
        #expect(removed.output.contains("has 1 controller pairing(s)") && !removed.output.contains("  \(standby)  "))
        // A controller that is no admin gets the accessory's own authentication error, and adds nothing.
        try await accessory.setAdmin(false)
        let notAdmin = try await ExecutableTests.run(
            ["pairings", "Desk", "--add", standby, "--key", key, "--config", config])
        #expect(notAdmin.status == 1)
        #expect(
            notAdmin.error
                == "hap2mqtt: Desk: the accessory refused with an authentication error: this gateway is not an admin of it, and only an admin may list, add or remove its pairings\n"
        )
        try await accessory.setAdmin(true)
        let afterRefusal = try await ExecutableTests.run(["pairings", "Desk", "--config", config])
        #expect(afterRefusal.output.contains("has 1 controller pairing(s)"), "\(afterRefusal.output)")

        let unknown = try await ExecutableTests.run(["pairings", "Nobody", "--config", config])
        #expect(unknown.status == 1 && unknown.error.contains("no pairing named \"Nobody\""), "\(unknown.error)")
        await accessory.stop()
    }

    @Test("an unreachable accessory: accessories and unpair fail in one line each, unpair --force forgets it")
    func unreachable() async throws {
        let accessory = try await HAPPythonAccessory.start()
        let files = try TemporaryFiles()
        defer { files.remove() }
        let config = try configuration(files)
        let port = String(accessory.port)
        #expect(
            try await ExecutableTests.run([
                "pair", "--host", "127.0.0.1", "--port", port, "--code", accessory.setupCode, "--config", config,
            ]).status == 0)
        await accessory.stop()

        let refused = "cannot reach 127.0.0.1:\(port): connection refused; is the accessory on and the port right?"
        let listed = try await ExecutableTests.run(["accessories", "--config", config])
        #expect(listed.status == 1)
        #expect(listed.error == "hap2mqtt: hap2mqtt Test Bridge: \(refused)\n")
        let kept = try await ExecutableTests.run(["unpair", "hap2mqtt Test Bridge", "--config", config])
        #expect(kept.status == 1)
        #expect(
            kept.error
                == "hap2mqtt: cannot remove the pairing from hap2mqtt Test Bridge (\(refused)); the pairing was kept: "
                + "switch the accessory on and try again, or unpair with --force (\"force\":true in a request) to forget it here only\n"
        )
        let forced = try await ExecutableTests.run([
            "unpair", "--force", "hap2mqtt Test Bridge", "--config", config, "--log-level", "error",
        ])
        #expect(forced.status == 0)
        #expect(
            forced.output
                == "forgot \"hap2mqtt Test Bridge\" here only (\(refused)); reset the accessory before pairing it again\n"
        )
        let unknown = try await ExecutableTests.run(["unpair", "hap2mqtt Test Bridge", "--config", config])
        #expect(unknown.status == 1)
        #expect(unknown.error == "hap2mqtt: no pairing named \"hap2mqtt Test Bridge\": there are no pairings\n")
    }

    @Test("pairing a reset accessory again with its pairing's name replaces the old pairing and says so")
    func pairAgainAfterReset() async throws {
        let accessory = try await HAPPythonAccessory.start()
        let files = try TemporaryFiles()
        defer { files.remove() }
        let config = try configuration(files)
        let pair = [
            "pair", "--host", "127.0.0.1", "--port", String(accessory.port), "--code", accessory.setupCode,
            "--name", "Demo Bridge", "--config", config,
        ]
        #expect(try await ExecutableTests.run(pair).status == 0)
        let id = try await accessory.status().pairingID
        try await accessory.resetPairings()

        let again = try await ExecutableTests.run(pair)
        #expect(again.status == 0, "\(again.error)")
        #expect(
            again.output == "paired with \"Demo Bridge\" again (replacing the old pairing of accessory id \(id)) at "
                + "127.0.0.1:\(accessory.port); hap2mqtt accessories lists it\n")
        let listed = try await ExecutableTests.run(["accessories", "--config", config])
        #expect(listed.output.hasPrefix("Demo Bridge  \(id) at 127.0.0.1:\(accessory.port)\n"))
        await accessory.stop()
    }

    @Test("pair with the port of an MQTT broker fails in one line that says to check the host and port")
    func pairWithABroker() async throws {
        let broker = try await MosquittoBroker()
        let files = try TemporaryFiles()
        defer { files.remove() }
        let result = try await ExecutableTests.run([
            "pair", "--host", "127.0.0.1", "--port", String(broker.port), "--code", "031-45-154",
            "--config", try configuration(files),
        ])
        await broker.stop()
        let endpoint = "127.0.0.1:\(broker.port)"
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        #expect(result.error.hasPrefix("hap2mqtt: pair-setup with \(endpoint) failed ("), "\(result.error)")
        #expect(
            result.error.hasSuffix(
                "): is \(endpoint) a HomeKit accessory? Check the host and port it announces (avahi-browse -rt _hap._tcp)\n"
            ))
        #expect(result.error.filter { $0 == "\n" }.count == 1)
    }

    @Test("a setup code that is not 8 digits is a usage error, before any contact")
    func badCode() async throws {
        let files = try TemporaryFiles()
        defer { files.remove() }
        let result = try await ExecutableTests.run([
            "pair", "--host", "127.0.0.1", "--port", "1", "--code", "12-34", "--config", try configuration(files),
        ])
        #expect(result.status == 2)
        #expect(
            result.error
                == "hap2mqtt: --code: the setup code must be 8 digits written XXX-XX-XXX (for example 123-45-678); see hap2mqtt pair --help\n"
        )
    }
}

@Suite("The accessory tree")
struct AccessoryTreeTests {
    @Test("values read with their units and enumeration names; write-only and refused ones are marked")
    func values() throws {
        let id = AccessoryID(serverID: "AA:BB:CC:DD:EE:FF", aid: 2)
        func make(_ iid: Int, _ type: String, _ value: CharacteristicValue?) throws -> Characteristic {
            let hapType = try #require(HAPType(type))
            return try #require(Characteristic.make(iid: iid, type: hapType, value: value))
        }
        let accessory = Accessory(
            id: id,
            services: [
                Service(
                    iid: 1, type: .Service.accessoryInformation,
                    characteristics: [try make(2, "14", nil), try make(5, "23", .string("Lamp \"A\""))]),
                Service(
                    iid: 8, type: .Service.lightbulb,
                    characteristics: [
                        try make(9, "25", .bool(true)), try make(10, "8", .int(42)), try make(11, "1D", .int(2)),
                        try make(12, "CE", .int(300)),
                    ]),
            ])
        let pairing = Pairing(
            accessoryPairingID: "AA:BB:CC:DD:EE:FF", accessoryLTPK: Array(repeating: 1, count: 32),
            controllerPairingID: "C", host: "10.0.0.2", port: 51826, name: "Hall")
        let text = AccessoryTree.render(
            pairing: pairing, accessories: [accessory], failures: [.init(aid: 2, iid: 12): .serviceCommunicationFailure]
        )
        #expect(
            text == """
                Hall  AA:BB:CC:DD:EE:FF at 10.0.0.2:51826
                  accessory 2: Lamp "A" (AA:BB:CC:DD:EE:FF/2)
                    AccessoryInformation (iid 1)
                       2  Identify          -             bool    pw
                       5  Name              "Lamp \\"A\\""  string  pr
                    Lightbulb (iid 8)
                       9  On                true          bool    pr pw ev
                      10  Brightness        42 %          int     pr pw ev
                      11  LockCurrentState  2 (Jammed)    uint8   pr ev
                      12  ColorTemperature  ?             uint32  pr pw ev  read failed: HAP status -70402 (unable to communicate with the accessory)

                """)
    }
}
