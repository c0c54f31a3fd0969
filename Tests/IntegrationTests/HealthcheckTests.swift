import Foundation
import HAP2MQTTTesting
import Testing

/// `hap2mqtt healthcheck` (the Docker image's HEALTHCHECK) beside a real `hap2mqtt run`, with the
/// same configuration and so the same state directory.
@Suite("hap2mqtt healthcheck")
struct HealthcheckTests {
    @Test("healthy while connected and synced; unhealthy when the broker is gone, and once the gateway stopped")
    func followsTheGateway() async throws {
        let broker = try await MosquittoBroker()
        let gateway = try GatewayProcess(brokerURL: broker.url)
        let before = try await gateway.runCommand(["healthcheck"])
        #expect(before.status == 1)
        #expect(before.output.hasPrefix("unhealthy: no "), "\(before.output)")

        try gateway.start()
        try await eventually("healthcheck says healthy", timeout: .seconds(20)) {
            try await gateway.runCommand(["healthcheck"]).status == 0
        }
        #expect(
            try await gateway.runCommand(["healthcheck"]).output
                == "healthy: connected to the MQTT broker, home synced\n")
        let health = try String(
            contentsOf: gateway.stateDirectory.appendingPathComponent("health.json"), encoding: .utf8)
        #expect(health.contains(#""state":"running""#), "\(health)")
        let mode =
            try FileManager.default.attributesOfItem(
                atPath: gateway.stateDirectory.appendingPathComponent("health.json").path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        await broker.stop()
        try await eventually("healthcheck says unhealthy without the broker", timeout: .seconds(20)) {
            try await gateway.runCommand(["healthcheck"]).status == 1
        }
        #expect(
            try await gateway.runCommand(["healthcheck"]).output
                == "unhealthy: not connected to the MQTT broker (reconnecting)\n")

        try await broker.restart()
        try await eventually("healthy again after the broker came back", timeout: .seconds(30)) {
            try await gateway.runCommand(["healthcheck"]).status == 0
        }
        await gateway.stop()
        #expect(gateway.terminationStatus == 0, "\(gateway.log)")
        let after = try await gateway.runCommand(["healthcheck"])
        #expect(after.status == 1)
        #expect(after.output == "unhealthy: hap2mqtt run has stopped\n")
        await broker.stop()
    }
}
