import HAPController
import Logging
import SystemSupport

/// DNS-SD browsing for `hap2mqtt run` (`homekit.discovery`, README "Finding accessories"): the
/// `HAPDiscovery` the providers follow, and the service that runs it, which waits for an Avahi daemon
/// that is not there (yet) instead of failing.
enum DiscoveryWiring {
    /// The discovery for `run`, not started; nil when `homekit.discovery` is off or the system has no
    /// browser (both said in the log). Each accessory that appears ready to pair is logged with the
    /// command that pairs it, `commandOptions` (` --config FILE`) added.
    static func make(
        _ configuration: Configuration, stateDirectory: StateDirectory, commandOptions: String, logger: Logger
    ) -> HAPDiscovery? {
        guard configuration.homekit.discovery else {
            logger.info(
                "DNS-SD discovery is off (homekit.discovery: false); accessories are reached at their stored addresses")
            return nil
        }
        guard let browser = HAPDiscovery.systemBrowser() else {
            logger.info(
                "this system has no DNS-SD browsing hap2mqtt can use; accessories are reached at their stored addresses"
            )
            return nil
        }
        let store = PairingStore(directory: stateDirectory)
        return HAPDiscovery(
            browser: browser, pairedIDs: { Set(store.loadPairings().pairings.map(\.accessoryPairingID)) },
            pairingHint: commandOptions, logger: logger)
    }

    /// The service that browses while `run` runs. It starts before the home store, whose providers
    /// follow it from their start.
    static func service(_ discovery: HAPDiscovery) -> Service {
        Service(
            "DNS-SD discovery", start: { try? await discovery.start(waitingForDaemon: true) },
            stop: { await discovery.stop() })
    }
}
