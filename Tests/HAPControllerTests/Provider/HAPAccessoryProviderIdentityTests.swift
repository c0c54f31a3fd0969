import Foundation
import HAP2MQTTTesting
import HAPController
import HomeModel
import HomeStore
import Logging
import Testing

/// What docs/troubleshooting.md promises when this controller's identity (`controller.json`) cannot be
/// loaded while accessories are paired with it: one error that says to restore the file (not to reset
/// the accessories), no new identity, and a restored file taken up without a restart. Against a real
/// HAP-python accessory.
@Suite("HAP accessory provider: an identity that cannot be loaded")
struct HAPAccessoryProviderIdentityTests {
    @Test("a missing, then damaged controller.json: one error each that says to restore it; restored, it connects")
    func restoredIdentity() async throws {
        let accessory = try await HAPPythonAccessory.start()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pairing = try await HAPController(stateDirectory: directory.stateDirectory, logger: Logger(label: "hap"))
            .pair(host: "127.0.0.1", port: accessory.port, setupCode: try SetupCode(accessory.setupCode))
        let file = directory.path + "/controller.json"
        let saved = try Data(contentsOf: URL(fileURLWithPath: file))
        try FileManager.default.removeItem(atPath: file)

        let log = LogCapture()
        let controller = HAPController(stateDirectory: directory.stateDirectory, logger: log.logger(label: "hap"))
        let provider = HAPAccessoryProvider(
            controller: controller, pairing: pairing,
            settings: HAPProviderSettings(pollInterval: .seconds(3600), keepaliveInterval: .seconds(3600)),
            logger: log.logger(label: "hap"))
        await provider.start()
        let missing = try await log.waitFor(.error, containing: "controller.json is missing", timeout: .seconds(20))
        #expect(
            missing.message
                == "no accessory can be reached: \(file) is missing, but the state directory holds 1 pairing file "
                + "made with it, which no new identity can use: restore controller.json from a backup (a running "
                + "gateway picks it up within seconds); or, to start over, remove the pairing files and reset the "
                + "accessories")
        #expect(!FileManager.default.fileExists(atPath: file), "no new identity is made beside a pairing")

        try Data("{\"pairingID\":".utf8).write(to: URL(fileURLWithPath: file))
        let damaged = try await log.waitFor(.error, containing: "cannot load this controller's identity")
        #expect(
            damaged.message
                == "no accessory can be reached: cannot load this controller's identity from \(file) (damaged: not "
                + "JSON); it was left as it is: restore controller.json from a backup (a running gateway picks it "
                + "up within seconds)")
        for record in log.all where record.level == .error {
            #expect(!record.message.lowercased().contains("reset the accessory"), "\(record.message)")
            #expect(!record.message.contains("no longer accepts"), "\(record.message)")
            #expect(!record.message.lowercased().contains("pair again"), "\(record.message)")
        }

        try saved.write(to: URL(fileURLWithPath: file))
        try await eventually("the restored identity connects", timeout: .seconds(30)) { await provider.isConnected }
        #expect(log.all.filter { $0.level == .error }.count == 2, "once each: \(log.lines)")
        #expect(log.records(.notice, containing: "identity loads again").count == 1, "\(log.lines)")
        await provider.stop()
        await accessory.stop()
    }
}
