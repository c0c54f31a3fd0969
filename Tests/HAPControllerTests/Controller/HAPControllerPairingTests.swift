import Foundation
import HAP2MQTTTesting
import HomeModel
import HomeStore
import Logging
import SystemSupport
import Testing

@testable import HAPController

/// Pair-setup, pair-verify, restart and unpair with a real HAP-python accessory (one test needs an accessory
/// that misbehaves on cue: the scripted one).
@Suite("HAP controller: pairing (HAP-python, and a scripted accessory)")
struct HAPControllerPairingTests {
    @Test("pair-setup succeeds 30 times in a row, each time with a freshly reset accessory")
    func pairSetupRepeatedly() async throws {
        let accessory = try await HAPPythonAccessory.start()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let code = try SetupCode(accessory.setupCode)
        var controllerIDs = Set<String>()
        for attempt in 1...30 {
            try await accessory.resetPairings()
            // A new controller each time: a new identity, so a new SRP exchange and new keys.
            let controller = HAPController(
                stateDirectory: StateDirectory(path: directory.path + "/\(attempt)"), logger: Logger(label: "hap"))
            let pairing = try await controller.pair(
                host: "127.0.0.1", port: accessory.port, setupCode: code, name: "Bridge")
            controllerIDs.insert(pairing.controllerPairingID)
            #expect(try await accessory.status().paired, "attempt \(attempt)")
        }
        #expect(controllerIDs.count == 30)
        await accessory.stop()
    }

    @Test("a wrong code fails with wrongSetupCode and saves nothing; the right code pairs afterwards")
    func wrongCode() async throws {
        let accessory = try await HAPPythonAccessory.start()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let controller = HAPController(stateDirectory: directory.stateDirectory, logger: Logger(label: "hap"))
        let wrong = accessory.setupCode == "111-22-333" ? "111-22-334" : "111-22-333"
        await #expect(throws: HAPControllerError.connection(.pairing(.wrongSetupCode))) {
            try await controller.pair(host: "127.0.0.1", port: accessory.port, setupCode: try SetupCode(wrong))
        }
        #expect(await controller.pairings().isEmpty)
        #expect(!(try await accessory.status().paired))

        let pairing = try await controller.pair(
            host: "127.0.0.1", port: accessory.port, setupCode: try SetupCode(accessory.setupCode))
        #expect(pairing.accessoryPairingID == (try await accessory.status().pairingID))
        #expect(await controller.pairings() == [pairing])
        await accessory.stop()
    }

    @Test("pairing an accessory that is paired already fails with alreadyPaired (alreadyPairedHere for its owner)")
    func alreadyPaired() async throws {
        let accessory = try await HAPPythonAccessory.start()
        let first = try TemporaryDirectory()
        let second = try TemporaryDirectory()
        defer {
            first.remove()
            second.remove()
        }
        let code = try SetupCode(accessory.setupCode)
        let owner = HAPController(stateDirectory: first.stateDirectory, logger: Logger(label: "hap"))
        _ = try await owner.pair(host: "127.0.0.1", port: accessory.port, setupCode: code)
        await #expect(
            throws: HAPControllerError.alreadyPairedHere(name: "hap2mqtt Test Bridge"),
            "the owner is told it has the pairing"
        ) {
            try await owner.pair(host: "127.0.0.1", port: accessory.port, setupCode: code)
        }
        let other = HAPController(stateDirectory: second.stateDirectory, logger: Logger(label: "hap"))
        let error = await #expect(throws: HAPControllerError.self) {
            try await other.pair(host: "127.0.0.1", port: accessory.port, setupCode: code)
        }
        #expect(error?.pairingError == .alreadyPaired)
        #expect(
            error?.description
                == "the accessory is already paired with another controller: remove it there or reset the accessory "
                + "(an interrupted pairing is a likely cause, and only a reset clears it)")
        #expect(await other.pairings().isEmpty)
        await accessory.stop()
    }

    @Test(
        "the pairing is saved at once, named after the accessory, mode 0600; a restarted controller pair-verifies from it"
    )
    func savedPairingSurvivesRestart() async throws {
        let accessory = try await HAPPythonAccessory.start()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pairing = try await HAPController(stateDirectory: directory.stateDirectory, logger: Logger(label: "hap"))
            .pair(host: "127.0.0.1", port: accessory.port, setupCode: try SetupCode(accessory.setupCode))
        #expect(pairing.name == "hap2mqtt Test Bridge")
        #expect(pairing.host == "127.0.0.1" && pairing.port == accessory.port)
        let file = PairingStore.fileName(forAccessory: pairing.accessoryPairingID)
        #expect(directory.files() == ["controller.json", file])
        #expect(try directory.mode(of: file) == 0o600)
        #expect(try directory.mode(of: "controller.json") == 0o600)

        // The accessory restarts too (it keeps its pairings); the controller is a new one on the same files.
        await accessory.stop()
        try await accessory.start()
        let restarted = HAPController(stateDirectory: directory.stateDirectory, logger: Logger(label: "hap"))
        #expect(await restarted.pairings() == [pairing])
        let client = try await restarted.connect(to: try await restarted.pairing(named: "HAP2MQTT test bridge"))
        let records = try await client.listPairings()
        #expect(records.map(\.pairingID) == [pairing.controllerPairingID])
        #expect(records.first?.isAdmin == true, "the pairing controller is the accessory's admin")
        await client.connection.close()
        await accessory.stop()
    }

    @Test("names: a given name is kept, a taken name is refused before any contact, an accessory's name gets a number")
    func names() async throws {
        let first = try await HAPPythonAccessory.start()
        let second = try await HAPPythonAccessory.start()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let controller = HAPController(stateDirectory: directory.stateDirectory, logger: Logger(label: "hap"))
        let kitchen = try await controller.pair(
            host: "127.0.0.1", port: first.port, setupCode: try SetupCode(first.setupCode), name: "Kitchen")
        #expect(kitchen.name == "Kitchen")
        await #expect(throws: HAPControllerError.nameInUse("Kitchen")) {
            try await controller.pair(
                host: "127.0.0.1", port: second.port, setupCode: try SetupCode(second.setupCode), name: "kitchen")
        }
        #expect(!(try await second.status().paired), "the accessory was not contacted")

        try await first.resetPairings()
        try await controller.unpair("Kitchen", force: true)
        let a = try await controller.pair(
            host: "127.0.0.1", port: first.port, setupCode: try SetupCode(first.setupCode))
        let b = try await controller.pair(
            host: "127.0.0.1", port: second.port, setupCode: try SetupCode(second.setupCode))
        #expect([a.name, b.name] == ["hap2mqtt Test Bridge", "hap2mqtt Test Bridge 2"])
        #expect(try await controller.pairing(named: b.accessoryPairingID.lowercased()) == b)
        #expect(
            try await controller.pairing(named: "\(a.accessoryPairingID)/3") == a,
            "an accessory id finds its server's pairing")
        await #expect(
            throws: HAPControllerError.unknownPairing(
                "Garage", known: ["hap2mqtt Test Bridge", "hap2mqtt Test Bridge 2"])
        ) {
            try await controller.pairing(named: "Garage")
        }
        await first.stop()
        await second.stop()
    }

    @Test("unpair removes the pairing on the accessory and here; pair-verify then fails with authenticationFailed")
    func unpair() async throws {
        let accessory = try await HAPPythonAccessory.start()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let controller = HAPController(stateDirectory: directory.stateDirectory, logger: Logger(label: "hap"))
        let pairing = try await controller.pair(
            host: "127.0.0.1", port: accessory.port, setupCode: try SetupCode(accessory.setupCode), name: "Hall")
        #expect(try await controller.unpair("hall") == .removed)
        #expect(await controller.pairings().isEmpty)
        #expect(directory.files() == ["controller.json"])
        #expect(!(try await accessory.status().paired), "the accessory forgot its only controller")
        await #expect(throws: HAPControllerError.connection(.pairing(.authenticationFailed))) {
            try await controller.connect(to: pairing)
        }
        // It can be paired again at once.
        _ = try await controller.pair(
            host: "127.0.0.1", port: accessory.port, setupCode: try SetupCode(accessory.setupCode))
        await accessory.stop()
    }

    @Test("unpair of an accessory that forgot us deletes the pairing; of an unreachable one keeps it unless forced")
    func unpairEdgeCases() async throws {
        let accessory = try await HAPPythonAccessory.start()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let controller = HAPController(stateDirectory: directory.stateDirectory, logger: Logger(label: "hap"))
        let code = try SetupCode(accessory.setupCode)
        _ = try await controller.pair(host: "127.0.0.1", port: accessory.port, setupCode: code, name: "Reset")
        try await accessory.resetPairings()
        #expect(try await controller.unpair("Reset") == .alreadyRemovedOnAccessory)
        #expect(await controller.pairings().isEmpty)

        _ = try await controller.pair(host: "127.0.0.1", port: accessory.port, setupCode: code, name: "Away")
        await accessory.stop()
        let refused = HAPConnectionError.connectFailed(.connectionRefused(host: "127.0.0.1", port: accessory.port))
        await #expect(throws: HAPControllerError.unpairFailed(name: "Away", reason: refused)) {
            try await controller.unpair("Away")
        }
        #expect(await controller.pairings().map(\.name) == ["Away"], "kept, to be tried again")
        #expect(try await controller.unpair("Away", force: true) == .removedLocallyOnly(reason: refused))
        #expect(await controller.pairings().isEmpty)
    }

    @Test("no log line shows the setup code or key bytes, in hex or base64")
    func logsKeepSecrets() async throws {
        // A code the specification forbids, so that the warning about it is logged too.
        let weak = try await HAPPythonAccessory.start(setupCode: "123-45-678")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let capture = LogCapture()
        let controller = HAPController(stateDirectory: directory.stateDirectory, logger: capture.logger(label: "hap"))
        let pairing = try await controller.pair(
            host: "127.0.0.1", port: weak.port, setupCode: try SetupCode("12345678"))
        let client = try await controller.connect(to: pairing)
        _ = try await client.read([HAPCharacteristicID(aid: 2, iid: 9)])
        await client.connection.close()
        try await controller.unpair(pairing.displayName)
        await weak.stop()

        let identity = try await controller.identity()
        let secrets =
            ["123-45-678", "12345678"]
            + [identity.seed, identity.publicKey, pairing.accessoryLTPK].flatMap { key in
                [
                    Hex.encode(key), Hex.encode(key).uppercased(), Base64.encode(key),
                    Base64.encode(Array(key.prefix(12))),
                ]
            }
        let lines = capture.lines
        #expect(lines.contains { $0.contains("forbids") }, "the forbidden code is warned about")
        #expect(lines.contains { $0.contains("unpaired") })
        for line in lines {
            for secret in secrets { #expect(!line.contains(secret), "secret in log line: \(line)") }
        }
    }

    @Test(
        "the pairing is saved right after M6: when the accessory drops the connection then, it is kept, named by its id"
    )
    func savedBeforeAnythingElse() async throws {
        let accessory = try ScriptedAccessory()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let capture = LogCapture()
        let controller = HAPController(stateDirectory: directory.stateDirectory, logger: capture.logger(label: "hap"))
        let server = Task {
            await accessory.accept()
            try await accessory.answerPairSetup()
            await accessory.close()  // instead of answering the pair-verify that would fetch the name
        }
        let pairing = try await controller.pair(
            host: "127.0.0.1", port: accessory.port, setupCode: try SetupCode("031-45-154"))
        try await server.value
        #expect(pairing.accessoryPairingID == accessory.pairingID)
        #expect(pairing.name == nil && pairing.displayName == accessory.pairingID)
        #expect(await controller.pairings() == [pairing])
        #expect(capture.lines.contains { $0.hasPrefix("warning hap: paired, but could not read the accessory's name") })
    }
}
