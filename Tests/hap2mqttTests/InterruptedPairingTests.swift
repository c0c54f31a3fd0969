import Foundation
import HAP2MQTTTesting
import HAPController
import Testing

@testable import hap2mqtt

/// A `pair` killed between pair-setup M5 and M6 (the accessory holds the pairing, the state directory
/// does not): the next `pair` says that the interrupted pairing is the cause and that the accessory must be
/// reset. Run as the built binary against a real HAP-python accessory, behind a relay
/// (`Tests/Fixtures/hold_pair_setup_m6.py`) that never delivers the first connection's M6.
@Suite("An interrupted pair-setup")
struct InterruptedPairingTests {
    @Test("a pair killed after M5 leaves a record, and the next pair says to reset the accessory")
    func killedAfterM5() async throws {
        let accessory = try await HAPPythonAccessory.start()
        let files = try TemporaryFiles()
        defer { files.remove() }
        let state = "\(files.path)/data"
        let config = try files.write("homekit:\n  state_dir: \(state)\n", to: "hap2mqtt.yaml")
        let relayOutput = URL(fileURLWithPath: files.path).appendingPathComponent("relay.out")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/hold_pair_setup_m6.py").path
        let relay = try ExternalTool.launch("python3", [script, String(accessory.port)], output: relayOutput)
        defer { relay.terminate() }
        var relayPort = ""
        try await eventually("the relay listens") {
            let text = (try? String(contentsOf: relayOutput, encoding: .utf8)) ?? ""
            guard let line = text.split(separator: "\n").first, let data = line.data(using: .utf8),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let port = object["port"] as? Int
            else { return false }
            relayPort = String(port)
            return true
        }
        let codeFile = try files.write(accessory.setupCode, to: "code")
        let pair = ["pair", "--host", "127.0.0.1", "--port", relayPort, "--code-file", codeFile, "--config", config]

        let killed = Process()
        killed.executableURL = try GatewayProcess.binary()
        killed.arguments = pair
        killed.standardInput = FileHandle.nullDevice
        killed.standardOutput = FileHandle.nullDevice
        killed.standardError = FileHandle.nullDevice
        try killed.run()
        // The accessory accepted M5; the relay holds M6 back: the window in which a kill loses the pairing.
        try await eventually("the accessory holds the pairing", timeout: .seconds(60)) {
            try await accessory.status().paired
        }
        kill(killed.processIdentifier, SIGKILL)
        while killed.isRunning { try await Task.sleep(for: .milliseconds(10)) }

        let left = try FileManager.default.contentsOfDirectory(atPath: state)
        #expect(!left.contains { $0.hasPrefix(PairingStore.pairingFilePrefix) })
        #expect(left.contains(PendingPairSetup.fileName))

        let again = try await ExecutableTests.run(pair)
        #expect(again.status == 1)
        #expect(
            again.error.hasPrefix(
                "hap2mqtt: the accessory is already paired: the pair-setup with 127.0.0.1:\(relayPort) that began at "))
        #expect(
            again.error.hasSuffix(
                " UTC was interrupted before the pairing was saved, so the accessory most likely holds a "
                    + "pairing no controller can use: reset the accessory (see its manual) and pair again\n"))

        // Paired elsewhere with no record here: the error still names an interrupted pairing as a likely cause.
        let elsewhere = try await ExecutableTests.run(
            [
                "pair", "--host", "127.0.0.1", "--port", String(accessory.port), "--code-file", codeFile, "--config",
                config,
            ])
        #expect(
            elsewhere.error == "hap2mqtt: already paired with another controller: remove that pairing first, or reset "
                + "the accessory; if a pair with it was interrupted (stopped or cut off while pairing), that is the likely cause "
                + "and only a reset of the accessory clears it\n")

        try await accessory.resetPairings()
        let fresh = try await ExecutableTests.run(pair)
        #expect(fresh.status == 0, "\(fresh.error)")
        let after = try FileManager.default.contentsOfDirectory(atPath: state)
        #expect(after.contains { $0.hasPrefix(PairingStore.pairingFilePrefix) })
        #expect(!after.contains(PendingPairSetup.fileName))
        await accessory.stop()
    }
}
