import Foundation
import Gateway
import HomeModel
import HomeStore
import Logging
import MQTT
import Synchronization
import SystemSupport

/// `hap2mqtt run`: the gateway in the foreground until SIGINT or SIGTERM.
///
/// Connects to the broker (retrying with back-off while it is unreachable, since a broker that starts
/// after the gateway is normal under systemd or compose), starts the home store with a provider per
/// paired accessory server, and runs the `Gateway`. A signal publishes `bridge/state` offline, closes the
/// connections and returns 0.
enum RunCommandRunner {
    static func run(_ context: CommandContext, loggers: Loggers) async -> Int32 {
        let configuration = context.configuration
        let logger = loggers.program
        let stateDirectory = StateDirectory(path: configuration.homekit.stateDirectory)
        do {
            try stateDirectory.create()
        } catch {
            StandardStream.write("hap2mqtt: cannot use the state directory: \(error)\n", to: STDERR_FILENO)
            return 1
        }
        let signals = await SignalHandler()
        defer { signals.cancel() }
        let stopRequested = Atomic<Bool>(false)
        let stopSignal = Task<Int32?, Never> {
            for await number in signals.signals {
                stopRequested.store(true, ordering: .sequentiallyConsistent)
                return number
            }
            return nil
        }

        let store = HomeStore(configuration: configuration.homeStoreConfiguration, logger: loggers.homeStore)
        let file = context.options.configPath
        let made = await AccessoryProviders.make(
            configuration, stateDirectory: stateDirectory, configurationFile: file, logger: loggers.hap)
        for provider in made.providers { await store.add(provider) }
        let watcher = PairingWatcher(
            store: store, stateDirectory: stateDirectory, pairings: made.pairings, problems: made.problems,
            logger: loggers.program, makeProvider: made.make)

        let mqtt: MQTTClient
        do {
            mqtt = try MQTTClient(configuration: configuration.mqttClientConfiguration, logger: loggers.mqtt)
        } catch {
            StandardStream.write("hap2mqtt: \(error)\n", to: STDERR_FILENO)
            return 1
        }
        guard await connect(mqtt, url: configuration.mqtt.url.description, logger: logger, until: stopRequested) else {
            logger.notice("received a signal before the broker could be reached; stopping")
            await store.stop()
            logger.info("stopped")
            return 0
        }

        let gateway = Gateway(configuration: configuration.gatewayConfiguration(stateDirectory: stateDirectory), store: store, mqtt: mqtt,
            logger: loggers.gateway)
        await store.start()
        let running = Task { await gateway.run() }
        let watching = Task { await watcher.run() }
        let signal = await stopSignal.value
        logger.notice("received signal \(signal ?? 0); stopping")
        watching.cancel()
        await gateway.stop()
        running.cancel()
        await store.stop()
        await mqtt.disconnect()
        logger.info("stopped")
        return 0
    }

    /// Connects, retrying with back-off (1 s doubling to 30 s) until it works or a signal arrives.
    /// Returns false when a signal ended the wait.
    private static func connect(
        _ mqtt: MQTTClient, url: String, logger: Logger, until stopRequested: borrowing Atomic<Bool>
    ) async -> Bool {
        var delay = Duration.seconds(1)
        while true {
            do {
                try await mqtt.connect()
                return true
            } catch {
                logger.error("cannot connect to the MQTT broker at \(url): \(error); retrying in \(delay.inSeconds) s")
            }
            let deadline = ContinuousClock.now + delay
            while ContinuousClock.now < deadline {
                if stopRequested.load(ordering: .sequentiallyConsistent) { return false }
                try? await Task.sleep(for: .milliseconds(100))
            }
            delay = min(delay * 2, .seconds(30))
        }
    }
}
