import Foundation
import HAP2MQTTTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `pair` with a state directory on a nearly full disk: the accessory stores the pairing when it accepts
/// pair-setup M5, so the room for the pairing file must be certain before then. Run as the built binary
/// against a real HAP-python accessory, with the state directory on a tmpfs of a few pages in a private
/// mount namespace (`unshare`), the only honest way to fill a disk without filling the machine's.
@Suite(
    "Pairing on a full disk",
    .enabled(if: getuid() == 0 && ExternalTool.find("unshare") != nil, "needs root and unshare"))
struct PairingDiskFullTests {
    /// Runs `pair` with the state directory `state` on a tmpfs of `size` bytes (two pages hold
    /// `controller.json` and `pair-setup-pending.json`), and returns its exit status, its standard error
    /// and the files left in the state directory (the tmpfs is gone once the namespace ends).
    func pair(_ accessory: HAPPythonAccessory, size: Int, files: TemporaryFiles) async throws
        -> (status: Int32, error: String, left: [String])
    {
        let state = "\(files.path)/data"
        let config = try files.write("homekit:\n  state_dir: \(state)\n", to: "hap2mqtt.yaml")
        let codeFile = try files.write("\(accessory.setupCode)\n", to: "code")
        let errorFile = "\(files.path)/pair.err"
        let script = #"""
            mkdir -p "$1" && mount -t tmpfs -o "size=$2,mode=0700" tmpfs "$1" || exit 99
            shift 2
            "$@" 2>"$ERRORS"
            echo "status $?"
            ls -A "$STATE"
            """#
        let output = try await ExternalTool.run(
            "env",
            [
                "ERRORS=\(errorFile)", "STATE=\(state)", "HAP2MQTT_HOMEKIT_DISCOVERY=false", "unshare", "--mount",
                "--propagation", "private", "sh", "-c", script, "sh", state, String(size),
                try GatewayProcess.binary().path, "pair", "--host", "127.0.0.1", "--port", String(accessory.port),
                "--code-file", codeFile, "--name", "Desk", "--config", config,
            ])
        let lines = output.split(separator: "\n").map(String.init)
        let statusLine = try #require(lines.first { $0.hasPrefix("status ") }, "\(output)")
        let status = try #require(Int32(statusLine.dropFirst("status ".count)), "\(output)")
        let error = (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
        return (status, error, Array(lines.drop { $0 != statusLine }.dropFirst()))
    }

    @Test("no room for the pairing file: pair refuses before M5 and the accessory stays unpaired")
    func refusedBeforeM5() async throws {
        let accessory = try await HAPPythonAccessory.start()
        let files = try TemporaryFiles()
        defer { files.remove() }
        let result = try await pair(accessory, size: 8192, files: files)
        #expect(result.status == 1, "\(result.error)")
        // Lines before it may warn of the test's own HAP2MQTT_ variables, which the namespace passes on.
        let line = result.error.split(separator: "\n").first { $0.hasPrefix("hap2mqtt: ") }.map(String.init)
        #expect(
            line
                == "hap2mqtt: not enough space in \(files.path)/data for a pairing file (No space left on device): "
                + "the accessory was left unpaired; free some space there and pair again", "\(result.error)")
        #expect(!(try await accessory.status().paired))
        #expect(result.left == ["controller.json"])
        await accessory.stop()
    }

    @Test("the room taken before M5 is given back for the pairing file, which fills the disk")
    func pairedOnTheLastPages() async throws {
        let accessory = try await HAPPythonAccessory.start()
        let files = try TemporaryFiles()
        defer { files.remove() }
        let result = try await pair(accessory, size: 16384, files: files)
        #expect(result.status == 0, "\(result.error)")
        #expect(try await accessory.status().paired)
        #expect(result.left.contains("controller.json"))
        #expect(result.left.contains { $0.hasPrefix("pairing-") && $0.hasSuffix(".json") })
        #expect(result.left.count == 2, "\(result.left)")
        await accessory.stop()
    }
}
