import Foundation
import Gateway
import HAP2MQTTTesting
import HAPController
import HomeModel
import HomeStore
import Logging
import MQTT
import SystemSupport
import Testing

@testable import hap2mqtt

/// `run`'s own services (`RunCommandRunner.services`) against a real mosquitto, with an in-memory
/// provider in place of the HAP ones, stopped from code instead of a signal.
@Suite("hap2mqtt run: a graceful stop without a signal")
struct RunServicesTests {
    @Test("stopped from code, bridge/state goes offline and every service stops in the reverse of its start")
    func gracefulStop() async throws {
        let broker = try await MosquittoBroker()
        let files = try TemporaryFiles()
        defer { files.remove() }
        let observer = try await MQTTTestClient.connect(to: broker.url, subscribe: ["hap2mqtt/#"])
        let log = LogCapture()
        let loggers = Loggers(sink: log.sink)

        let serverID = "AA:BB:CC:DD:EE:01"
        let provider = InMemoryAccessoryProvider(
            serverID: serverID,
            accessories: [
                InMemoryAccessoryProvider.accessory(
                    aid: 2, name: "Lamp", serverID: serverID, services: [.Service.lightbulb])
            ])
        let store = HomeStore(logger: loggers.homeStore)
        let stateDirectory = StateDirectory(path: files.path)
        let watcher = PairingWatcher(
            store: store, stateDirectory: stateDirectory, pairings: [], logger: loggers.program,
            makeProvider: { _ in provider })
        var configuration = MQTTConfiguration(url: broker.url, clientID: "hap2mqtt-run-test")
        configuration.will = Gateway.lastWill(baseTopic: "hap2mqtt")
        let mqtt = try MQTTClient(configuration: configuration, logger: loggers.mqtt)
        let gateway = Gateway(
            configuration: GatewayConfiguration(
                version: "test", stateDirectory: stateDirectory, mqttSummary: ["url": broker.url]),
            store: store, mqtt: mqtt, logger: loggers.gateway)
        let monitor = HealthMonitor(stateDirectory: stateDirectory, logger: loggers.program) { [mqtt, gateway] in
            HealthMonitor.Sample(brokerConnected: mqtt.isConnected, homeSynced: await gateway.hasPublishedHome)
        }
        let stop = StopRequest()
        let services = RunCommandRunner.services(
            mqtt: mqtt, brokerURL: broker.url, store: store, providers: [provider], gateway: gateway, watcher: watcher,
            monitor: monitor, stop: stop, logger: loggers.program)
        #expect(
            services.map(\.name) == [
                "health monitor", "MQTT client", "home store", "gateway", "pairing watcher", "memory trimmer",
            ])

        async let running: Void = ServiceGroup(services, logger: loggers.program).run(until: stop)
        _ = try await observer.waitFor(topic: "hap2mqtt/bridge/state") { $0.payloadString == #"{"state":"online"}"# }
        _ = try await observer.waitFor(topic: "hap2mqtt/lamp/lightbulb/on")
        await observer.clear()

        stop.request(.requested(by: "the test"))
        try await running
        let offline = try await observer.waitFor(topic: "hap2mqtt/bridge/state")
        #expect(offline.payloadString == #"{"state":"offline"}"#)
        #expect(try await observer.retained("hap2mqtt/bridge/state")?.payloadString == #"{"state":"offline"}"#)
        #expect(!mqtt.isConnected)
        #expect(
            !log.lines.contains { $0.contains("left to the last will") }, "offline was published, not left to the will")

        let lifeCycle = log.all.filter {
            $0.label == "hap2mqtt" && ($0.level == .debug || $0.level >= .notice || $0.message == "stopped")
        }
        #expect(
            lifeCycle.map(\.message) == [
                "started health monitor", "started MQTT client", "started home store", "started gateway",
                "started pairing watcher", "started memory trimmer",
                "the test asked to stop; stopping",
                "stopped memory trimmer", "stopped pairing watcher", "stopped gateway", "stopped home store",
                "stopped MQTT client",
                "stopped health monitor",
                "stopped",
            ])
        let health = try HealthStatus.decode(try #require(try stateDirectory.read(HealthStatus.fileName)))
        #expect(health.state == .stopped)
        await observer.disconnect()
        await broker.stop()
    }
}
