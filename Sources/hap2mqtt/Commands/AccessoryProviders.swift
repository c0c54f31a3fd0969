import HAPController
import HomeModel
import HomeStore

/// The accessory providers `run` starts: one per paired accessory server in the state directory.
enum AccessoryProviders {
    /// A `HAPAccessoryProvider` per pairing, sharing one controller, with the configuration's poll and
    /// keep-alive intervals and its excluded accessories left out; and the function that makes one for a
    /// pairing made later (`PairingWatcher`).
    /// - Parameter configurationFile: the `--config` file `run` was started with, for the commands the
    ///   log suggests; nil for the default file.
    static func make(_ configuration: Configuration, stateDirectory: StateDirectory, configurationFile: String? = nil) async
        -> (providers: [any AccessoryProvider], pairings: [Pairing], make: @Sendable (Pairing) -> any AccessoryProvider)
    {
        let controller = HAPController(stateDirectory: stateDirectory)
        let pairings = await controller.pairings()
        let logger = Logger(label: "hap")
        if pairings.isEmpty {
            logger.notice("no paired accessories in \(stateDirectory.path); pair one with hap2mqtt pair --host H --port P --code XXX-XX-XXX")
        }
        let homekit = configuration.homekit
        let make: @Sendable (Pairing) -> any AccessoryProvider = { pairing in
            let serverID = AccessoryID(serverID: pairing.accessoryPairingID, aid: 0).serverID
            let excluded = homekit.accessories.filter { $0.key.serverID == serverID && $0.value.exclude }.map(\.key.aid)
            var settings = HAPProviderSettings(
                pollInterval: homekit.pollInterval, keepaliveInterval: homekit.keepaliveInterval, excludedAIDs: Set(excluded))
            if let configurationFile { settings.commandOptions = " --config \(Self.shellQuoted(configurationFile))" }
            return HAPAccessoryProvider(controller: controller, pairing: pairing, settings: settings, logger: logger)
        }
        return (pairings.map(make), pairings, make)
    }

    /// `text` as one shell word: as it is when it has only safe characters, else in single quotes.
    static func shellQuoted(_ text: String) -> String {
        let safe = text.allSatisfy { $0.isLetter || $0.isNumber || "/._-+:@%=,".contains($0) }
        return safe && !text.isEmpty ? text : "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
