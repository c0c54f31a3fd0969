import Foundation
import HAP2MQTTTesting
import Testing

/// `hap2mqtt export --aiohomekit FILE` read back by the real aiohomekit 4.0.1 (Tests/Fixtures/
/// aiohomekit_pairing.py), which then reads and writes the accessory hap2mqtt paired: leaving hap2mqtt
/// needs no reset.
@Suite("hap2mqtt export for aiohomekit, with a real accessory")
struct AiohomekitExportTests {
    @Test(
        "the exported pairing file lets aiohomekit read the accessory and turn a light on; mode 0600; never overwritten"
    )
    func exportReadByAiohomekit() async throws {
        let live = try await LiveGateway.start(run: false)
        let file = live.gateway.directory.appendingPathComponent("aiohomekit-pairings.json")
        let export = try await live.gateway.runCommand(["export", "--aiohomekit", file.path])
        #expect(export.status == 0, "\(export.output)")
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        let pairings = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: [String: Any]])
        let alias = try #require(pairings.keys.first)
        #expect(pairings.count == 1)
        #expect(pairings[alias]?["Connection"] as? String == "IP")
        #expect(!export.output.contains(try #require(pairings[alias]?["iOSDeviceLTSK"] as? String)))

        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/aiohomekit_pairing.py").path
        let output = try await ExternalTool.run(
            try HAPPythonAccessory.python(), [script, "check", "--file", file.path, "--alias", alias])
        let line = try #require(output.split(separator: "\n").last)
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect((answer["accessories"] as? Int ?? 0) > 1, "\(output)")
        #expect(answer["on"] as? Bool == true || answer["on"] as? Int == 1, "\(output)")

        let again = try await live.gateway.runCommand(["export", "--aiohomekit", file.path])
        #expect(again.status == 1 && again.output.contains("exists already"), "\(again.output)")
        await live.stop()
    }
}
