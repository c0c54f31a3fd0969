import HAPController
import HomeModel
import HomeStore

/// The accessory providers `run` starts: one per paired accessory server in the state directory.
enum AccessoryProviders {
    /// A `HAPAccessoryProvider` per pairing, sharing one controller, with the configuration's poll and
    /// keep-alive intervals and its excluded accessories left out.
    static func make(_ configuration: Configuration, stateDirectory: StateDirectory) async -> [any AccessoryProvider] {
        let controller = HAPController(stateDirectory: stateDirectory)
        let pairings = await controller.pairings()
        let logger = Logger(label: "hap")
        if pairings.isEmpty {
            logger.notice("no paired accessories in \(stateDirectory.path); pair one with hap2mqtt pair --host H --port P --code XXX-XX-XXX")
        }
        return pairings.map { pairing in
            let serverID = AccessoryID(serverID: pairing.accessoryPairingID, aid: 0).serverID
            let excluded = configuration.homekit.accessories.filter { $0.key.serverID == serverID && $0.value.exclude }.map(\.key.aid)
            let settings = HAPProviderSettings(
                pollInterval: configuration.homekit.pollInterval, keepaliveInterval: configuration.homekit.keepaliveInterval,
                excludedAIDs: Set(excluded))
            return HAPAccessoryProvider(controller: controller, pairing: pairing, settings: settings, logger: logger)
        }
    }
}
