import Foundation
import Testing

@testable import hap2mqtt

@Suite("health.json and hap2mqtt healthcheck")
struct HealthStatusTests {
    static let written = Date(timeIntervalSince1970: 1_800_000_000)

    static func status(_ state: HealthStatus.State = .running, broker: Bool = true, home: Bool = true) -> HealthStatus {
        HealthStatus(state: state, brokerConnected: broker, homeSynced: home, updated: written)
    }

    @Test("the file is small JSON with an ISO 8601 time, and reads back the same")
    func roundTrip() throws {
        let status = Self.status(broker: false)
        let text = String(decoding: status.encoded(), as: UTF8.self)
        #expect(
            text == #"{"broker_connected":false,"home_synced":true,"state":"running","updated":"2027-01-15T08:00:00Z"}"#
        )
        #expect(try HealthStatus.decode(status.encoded()) == status)
    }

    @Test(
        "healthy only when running, connected, synced and fresh; the line says what is wrong",
        arguments: [
            (status(), 10, true, "connected to the MQTT broker, home synced"),
            (status(), 60, true, "connected to the MQTT broker, home synced"),
            (status(), 61, false, "hap2mqtt run last wrote its health 61 s ago: it no longer runs, or hangs"),
            (status(), -5, true, "connected to the MQTT broker, home synced"),
            (
                status(), -3600, false,
                "hap2mqtt run's health is dated 3600 s in the future: the file was not written by a running gateway, or the clock moved back"
            ),
            (status(broker: false), 1, false, "not connected to the MQTT broker (reconnecting)"),
            (status(.starting, home: false), 1, false, "connected to the MQTT broker; the home has not synced yet"),
            (
                status(.starting, broker: false, home: false), 1, false,
                "not connected to the MQTT broker yet; the home has not synced"
            ),
            (status(.stopped, broker: false, home: false), 1, false, "hap2mqtt run has stopped"),
        ] as [(HealthStatus, Double, Bool, String)])
    func verdict(status: HealthStatus, age: Double, healthy: Bool, reason: String) {
        let verdict = status.verdict(at: Self.written.addingTimeInterval(age))
        #expect(verdict.healthy == healthy)
        #expect(verdict.reason == reason)
    }

    /// `hap2mqtt healthcheck --config <folder>/hap2mqtt.yaml` with `state_dir: <folder>/data`.
    static func healthcheck(_ files: TemporaryFiles, now: Date = written) throws -> (status: Int32, line: String) {
        let config = try files.write("homekit:\n  state_dir: \(files.path)/data\n", to: "hap2mqtt.yaml")
        guard
            case .command(let context) = Startup.decide(
                arguments: ["healthcheck", "--config", config], environment: [:]),
            let command = context.command.as(HealthcheckCommand.self)
        else {
            Issue.record("healthcheck did not parse")
            return (-1, "")
        }
        return command.run(context, now: now)
    }

    @Test("healthcheck reads health.json from the configured state directory")
    func command() throws {
        let files = try TemporaryFiles()
        defer { files.remove() }
        let missing = try Self.healthcheck(files)
        #expect(missing.status == 1)
        #expect(
            missing.line
                == "unhealthy: no \(files.path)/data/health.json: hap2mqtt run has not started with this state directory\n"
        )

        try FileManager.default.createDirectory(atPath: files.path + "/data", withIntermediateDirectories: true)
        try files.write("{\"state\":", to: "data/health.json")
        let damaged = try Self.healthcheck(files)
        #expect(damaged.status == 1)
        #expect(
            damaged.line
                == "unhealthy: cannot read \(files.path)/data/health.json: it is not a health file of hap2mqtt run\n")

        try Self.status().encoded().write(to: URL(fileURLWithPath: files.path + "/data/health.json"))
        #expect(try Self.healthcheck(files) == (0, "healthy: connected to the MQTT broker, home synced\n"))
        #expect(try Self.healthcheck(files, now: Self.written.addingTimeInterval(3600)).status == 1)
    }
}
