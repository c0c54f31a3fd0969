import Foundation
import HAP2MQTTTesting
import Testing

@testable import hap2mqtt

/// `hap2mqtt pair` when `controller.json` is missing beside pairing files: it refuses before any contact,
/// with the advice to restore the file, and makes no new identity. Run as the built binary.
@Suite("pair without the controller identity")
struct IdentityCommandTests {
    @Test("controller.json missing beside a pairing file: pair exits 1, says to restore it, makes no identity")
    func missingIdentity() async throws {
        let files = try TemporaryFiles()
        defer { files.remove() }
        let state = "\(files.path)/data"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        _ = try files.write(
            #"{"accessoryLTPK":"11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=","accessoryPairingID":"AA:BB:CC:DD:EE:01","controllerPairingID":"8A3C2F4E-0000-4000-8000-000000000001","host":"192.0.2.1","name":"Lamp","port":51826}"#,
            to: "data/pairing-AA-BB-CC-DD-EE-01.json")
        let config = try files.write("homekit:\n  state_dir: \(state)\n", to: "hap2mqtt.yaml")
        // Nothing listens on port 1: the refusal must come before any connection.
        let result = try await ExecutableTests.run(
            ["pair", "--host", "127.0.0.1", "--port", "1", "--code", "031-45-154", "--config", config])
        #expect(result.status == 1)
        #expect(
            result.error
                == "hap2mqtt: \(state)/controller.json is missing, but the state directory holds 1 pairing file made "
                + "with it, which no new identity can use: restore controller.json from a backup (a running gateway "
                + "picks it up within seconds); or, to start over, remove the pairing files and reset the accessories\n"
        )
        #expect(!FileManager.default.fileExists(atPath: "\(state)/controller.json"))
    }
}
