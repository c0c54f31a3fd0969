import HAP2MQTTTesting
import HAPController
import HomeModel
import HomeStore
import Logging
import Testing

/// What docs/troubleshooting.md promises when an accessory was reset: one error line `… no longer
/// accepts this controller … Pair again` with the commands to run, against a real HAP-python accessory.
@Suite("HAP accessory provider: an accessory that was reset")
struct HAPAccessoryProviderResetTests {
    @Test("a reset accessory gets one error that says to pair again with the full pair and unpair commands")
    func pairAgainError() async throws {
        let accessory = try await HAPPythonAccessory.start()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = LogCapture()
        let controller = HAPController(stateDirectory: directory.stateDirectory, logger: log.logger(label: "hap"))
        let pairing = try await controller.pair(
            host: "127.0.0.1", port: accessory.port, setupCode: try SetupCode(accessory.setupCode), name: "Desk Bridge")
        var settings = HAPProviderSettings(pollInterval: .seconds(3600), keepaliveInterval: .seconds(3600))
        settings.commandOptions = " --config /etc/hap2mqtt/hap2mqtt.yaml"
        let provider = HAPAccessoryProvider(
            controller: controller, pairing: pairing, settings: settings, logger: log.logger(label: "hap"))
        let events = ProviderEvents(provider.events)
        await provider.start()
        _ = try await events.wait(count: 1)

        try await accessory.resetPairings()
        let record = try await log.waitFor(
            .error, containing: "no longer accepts this controller", timeout: .seconds(20))
        let id = pairing.accessoryPairingID
        #expect(record.label == "hap")
        #expect(record.metadata["pairing"] == id)
        #expect(record.message.hasPrefix("Desk Bridge (\(id)) no longer accepts this controller: "))
        #expect(
            record.message.contains(
                "(reset, or removed by another controller). hap2mqtt stopped connecting to it. Pair again with hap2mqtt pair "
                    + "--host 127.0.0.1 --port \(accessory.port) --config /etc/hap2mqtt/hap2mqtt.yaml "
                    + "(the running gateway takes the new pairing up), "
                    + #"or remove it with hap2mqtt unpair "Desk Bridge" --force --config /etc/hap2mqtt/hap2mqtt.yaml"#))
        #expect(record.message.hasSuffix("--force --config /etc/hap2mqtt/hap2mqtt.yaml"))
        #expect(
            log.records(.error, containing: "no longer accepts this controller").count == 1, "said once: \(log.lines)")
        await provider.stop()
        await accessory.stop()
    }
}
