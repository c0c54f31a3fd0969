import Foundation
import HAP2MQTTTesting
import SystemSupport
import Testing

/// Two `hap2mqtt run` on one state directory would overwrite each other's files: the second is refused,
/// and the kernel frees the directory when the first dies, however it dies.
@Suite("The state directory lock of run")
struct StateDirectoryLockTests {
    @Test(
        "a second run on the same state directory is refused naming the directory and the first's pid; a kill frees it")
    func secondRunRefused() async throws {
        // No broker: run keeps retrying, which is all this needs.
        let gateway = try GatewayProcess(brokerURL: "mqtt://127.0.0.1:1")
        defer { try? FileManager.default.removeItem(at: gateway.directory) }
        try gateway.start()
        let first = try #require(gateway.processIdentifier)
        let lockFile = gateway.stateDirectory.appendingPathComponent(StateDirectoryLock.fileName)
        try await eventually("the first run holds the lock", timeout: .seconds(60)) {
            (try? String(contentsOf: lockFile, encoding: .utf8)) == "\(first)\n"
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: lockFile.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

        let second = try await gateway.runCommand(["run"], timeout: .seconds(60))
        #expect(second.status == 1, "\(second.output)")
        let lines = second.output.split(separator: "\n")
        #expect(lines.count == 1, "\(second.output)")
        #expect(
            second.output.contains(
                "\(gateway.stateDirectory.path) is in use by another hap2mqtt run (process \(first))"),
            "\(second.output)")
        #expect(gateway.isRunning)

        await gateway.kill()
        try gateway.start()
        let third = try #require(gateway.processIdentifier)
        try await eventually("a run after the kill takes the lock", timeout: .seconds(60)) {
            (try? String(contentsOf: lockFile, encoding: .utf8)) == "\(third)\n"
        }
        #expect(gateway.isRunning)
        await gateway.stop()
    }
}
