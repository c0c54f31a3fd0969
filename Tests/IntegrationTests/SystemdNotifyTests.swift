import Foundation
import HAP2MQTTTesting
import Testing

/// The real binary under a fake systemd: a notify socket the test binds (`NotifySocket`) as
/// `NOTIFY_SOCKET`, and `WATCHDOG_USEC` as systemd sets it for `WatchdogSec=`
/// (packaging/systemd/hap2mqtt.service).
@Suite("hap2mqtt run under systemd: sd_notify")
struct SystemdNotifyTests {

    @Test(
        "READY=1 comes only once the broker is up and the home synced; WATCHDOG=1 repeats from the start; STOPPING=1 on SIGTERM"
    )
    func notifyMessages() async throws {
        let broker = try await MosquittoBroker()
        await broker.stop()
        let socket = try NotifySocket()
        // sd_watchdog_enabled halves it: a ping every 0.5 s, sent at each 1 s tick of the monitor.
        let gateway = try GatewayProcess(
            brokerURL: broker.url, environment: ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "1000000"])
        try gateway.start()

        try await eventually("the gateway waiting for the broker", timeout: .seconds(60)) {
            gateway.log.contains("cannot connect to the MQTT broker")
        }
        try await eventually("two WATCHDOG=1 while the broker is away", timeout: .seconds(60)) {
            socket.messages(with: "WATCHDOG=1").count >= 2
        }
        #expect(socket.messages(with: "READY=1").isEmpty, "ready before the broker was up: \(socket.messages)")

        try await broker.restart()
        let observer = try await MQTTTestClient.connect(to: broker, subscribe: ["hap2mqtt/bridge/state"])
        try await eventually("READY=1 once connected and synced", timeout: .seconds(60)) {
            !socket.messages(with: "READY=1").isEmpty
        }
        let ready = try #require(socket.messages(with: "READY=1").first)
        #expect(ready.contains("STATUS=connected to the MQTT broker, home synced"), "\(ready)")
        #expect(socket.messages(with: "READY=1").count == 1)
        #expect(try await observer.retained("hap2mqtt/bridge/state")?.bridgeState == "online")
        let pings = socket.messages(with: "WATCHDOG=1").count
        try await eventually("WATCHDOG=1 going on after READY=1", timeout: .seconds(60)) {
            socket.messages(with: "WATCHDOG=1").count >= pings + 2
        }
        #expect(socket.messages(with: "STOPPING=1").isEmpty)

        await gateway.stop()
        #expect(gateway.terminationStatus == 0, "\(gateway.log)")
        #expect(socket.messages(with: "STOPPING=1").count == 1, "\(socket.messages)")
        await observer.disconnect()
        await broker.stop()
    }

    @Test("without WATCHDOG_USEC there is READY=1 but no WATCHDOG=1")
    func noWatchdog() async throws {
        let broker = try await MosquittoBroker()
        let socket = try NotifySocket()
        let gateway = try GatewayProcess(brokerURL: broker.url, environment: ["NOTIFY_SOCKET": socket.path])
        try gateway.start()
        try await eventually("READY=1", timeout: .seconds(60)) { !socket.messages(with: "READY=1").isEmpty }
        // The monitor samples every second: a health.json written twice since READY is two ticks later.
        let health = gateway.stateDirectory.appendingPathComponent("health.json")
        let first = try Data(contentsOf: health)
        try await eventually("the next refresh of health.json", timeout: .seconds(30)) {
            (try? Data(contentsOf: health)).map { $0 != first } ?? false
        }
        #expect(socket.messages(with: "WATCHDOG=1").isEmpty, "\(socket.messages)")
        await gateway.stop()
        #expect(gateway.terminationStatus == 0, "\(gateway.log)")

        await broker.stop()
    }
}
