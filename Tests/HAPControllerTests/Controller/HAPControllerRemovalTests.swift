import HAP2MQTTTesting
import Logging
import Testing

@testable import HAPController

/// Whether a pairing is gone or going, which a provider asks when its session ends: the accessory closes the
/// session of a controller that removed its pairing, and that is no lost connection to warn about.
@Suite("HAP controller: a pairing being removed")
struct HAPControllerRemovalTests {
    @Test("a pairing is removed while unpair removes it and once its file is gone, not before")
    func removedWhileAndAfterUnpair() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let controller = HAPController(
            stateDirectory: directory.stateDirectory, logger: LogCapture().logger(label: "hap"))
        let identity = try await controller.identity()
        let pairing = Pairing(
            accessoryPairingID: "11:22:33:44:55:66", accessoryLTPK: Array(repeating: 7, count: 32),
            controllerPairingID: identity.pairingID, host: "127.0.0.1", port: 51826, name: "Lamp")
        try controller.store.save(pairing)
        #expect(!controller.isRemoved("11:22:33:44:55:66"))
        await controller.markRemoving("11:22:33:44:55:66", true)
        #expect(controller.isRemoved("11:22:33:44:55:66"), "while unpair removes it")
        #expect(controller.isRemoved("11:22:33:44:55:66".lowercased()), "in any case")
        await controller.markRemoving("11:22:33:44:55:66", false)
        #expect(!controller.isRemoved("11:22:33:44:55:66"), "an unpair that failed keeps it")
        try controller.store.remove(accessoryPairingID: "11:22:33:44:55:66")
        #expect(controller.isRemoved("11:22:33:44:55:66"), "its file is gone")
    }
}
