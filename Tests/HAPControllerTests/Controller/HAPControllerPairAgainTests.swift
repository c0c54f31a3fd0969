import HAP2MQTTTesting
import Logging
import Testing

@testable import HAPController

/// Pairing again with an accessory that was reset (HAP-python), and a name that another accessory's
/// pairing holds at the same address.
@Suite("HAP controller: pairing an accessory again")
struct HAPControllerPairAgainTests {
    @Test("pairing a reset accessory again replaces its old pairing, with the name given or else the old one")
    func pairAgainAfterReset() async throws {
        let accessory = try await HAPPythonAccessory.start()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let controller = HAPController(stateDirectory: directory.stateDirectory, logger: Logger(label: "hap"))
        let code = try SetupCode(accessory.setupCode)
        let first = try await controller.pairSetup(
            host: "127.0.0.1", port: accessory.port, setupCode: code, name: "Demo Bridge")
        #expect(first.replaced == nil)

        try await accessory.resetPairings()
        let again = try await controller.pairSetup(
            host: "127.0.0.1", port: accessory.port, setupCode: code, name: "Demo Bridge")
        #expect(again.replaced == first.pairing)
        #expect(
            again.pairing.name == "Demo Bridge" && again.pairing.accessoryPairingID == first.pairing.accessoryPairingID)
        #expect(await controller.pairings() == [again.pairing])
        let client = try await controller.connect(to: again.pairing)
        await client.connection.close()

        try await accessory.resetPairings()
        let unnamed = try await controller.pairSetup(host: "127.0.0.1", port: accessory.port, setupCode: code)
        #expect(unnamed.replaced == again.pairing)
        #expect(unnamed.pairing.name == "Demo Bridge", "the old name, not the accessory's")

        try await accessory.resetPairings()
        let renamed = try await controller.pairSetup(
            host: "127.0.0.1", port: accessory.port, setupCode: code, name: "Desk")
        #expect(renamed.replaced?.name == "Demo Bridge")
        #expect(await controller.pairings().map(\.name) == ["Desk"])
        #expect(directory.files().count == 2, "one pairing file and controller.json")
        await accessory.stop()
    }

    @Test(
        "a name another accessory's pairing holds at this address is refused, and the accessory forgets the new pairing"
    )
    func nameOfAnotherAccessoryAtTheAddress() async throws {
        let accessory = try await HAPPythonAccessory.start()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let controller = HAPController(stateDirectory: directory.stateDirectory, logger: Logger(label: "hap"))
        let code = try SetupCode(accessory.setupCode)
        let kitchen = try await controller.pair(
            host: "127.0.0.1", port: accessory.port, setupCode: code, name: "Kitchen")
        await accessory.stop()
        try await accessory.start(reset: true)  // a new accessory (new pairing id) at the same address
        let newID = try await accessory.status().pairingID
        #expect(newID != kitchen.accessoryPairingID)

        await #expect(throws: HAPControllerError.nameInUse("Kitchen")) {
            try await controller.pair(host: "127.0.0.1", port: accessory.port, setupCode: code, name: "kitchen")
        }
        #expect(!(try await accessory.status().paired), "the new pairing was removed on the accessory")
        #expect(await controller.pairings() == [kitchen])
        let pantry = try await controller.pairSetup(
            host: "127.0.0.1", port: accessory.port, setupCode: code, name: "Pantry")
        #expect(pantry.pairing.accessoryPairingID == newID && pantry.replaced == nil)
        await accessory.stop()
    }

    @Test("when the new pairing cannot be removed from the other accessory, it is kept under a numbered name")
    func refusedNameKeptWhenTheAccessoryCannotBeTold() async throws {
        let accessory = try ScriptedAccessory()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let capture = LogCapture()
        let controller = HAPController(stateDirectory: directory.stateDirectory, logger: capture.logger(label: "hap"))
        let identity = try await controller.identity()
        let kitchen = Pairing(
            accessoryPairingID: "11:22:33:44:55:66", accessoryLTPK: Array(repeating: 7, count: 32),
            controllerPairingID: identity.pairingID, host: "127.0.0.1", port: accessory.port, name: "Kitchen")
        try controller.store.save(kitchen)
        let server = Task {
            await accessory.accept()
            try await accessory.answerPairSetup()
            await accessory.close()  // instead of answering the pair-verify that would remove the pairing
        }
        let pairing = try await controller.pair(
            host: "127.0.0.1", port: accessory.port, setupCode: try SetupCode("031-45-154"), name: "Kitchen")
        try await server.value
        #expect(pairing.accessoryPairingID == accessory.pairingID && pairing.name == "Kitchen 2")
        #expect(await controller.pairings().map(\.name) == ["Kitchen", "Kitchen 2"])
        #expect(
            capture.lines.contains {
                $0.hasPrefix("warning hap: \"Kitchen\" names the pairing of another accessory (11:22:33:44:55:66)")
            })
    }
}
