import HAPController
import HomeModel
import HomeStore
import Logging
import SystemSupport

/// The accessory providers `run` starts: one per paired accessory server in the state directory.
enum AccessoryProviders {
    /// A `HAPAccessoryProvider` per pairing, sharing one controller, with the configuration's poll and
    /// keep-alive intervals and its excluded accessories left out; the function that makes one for a
    /// pairing made later (`PairingWatcher`); and the controller they share.
    /// - Parameters:
    ///   - configurationFile: the `--config` file `run` was started with, for the commands the log
    ///     suggests; nil for the default file.
    ///   - discovery: the gateway's DNS-SD browsing, which the providers follow; nil when it is off.
    ///   - logger: the controller's and the providers' (`hap`).
    static func make(
        _ configuration: Configuration, stateDirectory: StateDirectory, configurationFile: String? = nil,
        discovery: HAPDiscovery? = nil, logger: Logger
    ) async
        -> (
            providers: [any AccessoryProvider], pairings: [Pairing], problems: Set<String>,
            make: @Sendable (Pairing) -> any AccessoryProvider, controller: HAPController
        )
    {
        let controller = HAPController(stateDirectory: stateDirectory, logger: logger)
        let contents = controller.store.loadPairings()
        for problem in contents.problems { logger.warning("skipped a pairing file: \(problem)") }
        if contents.pairings.isEmpty && contents.problems.isEmpty {
            let how = discovery == nil ? "--host H --port P" : "--id ID (hap2mqtt discover lists them)"
            logger.notice("no paired accessories in \(stateDirectory.path); pair one with hap2mqtt pair \(how)")
        }
        let homekit = configuration.homekit
        let settings: @Sendable (String) -> HAPProviderSettings = { accessoryPairingID in
            let serverID = AccessoryID(serverID: accessoryPairingID, aid: 0).serverID
            let excluded = homekit.accessories.filter { $0.key.serverID == serverID && $0.value.exclude }.map(\.key.aid)
            var settings = HAPProviderSettings(
                pollInterval: homekit.pollInterval, keepaliveInterval: homekit.keepaliveInterval,
                excludedAIDs: Set(excluded),
                catchupInterval: homekit.catchupInterval)
            if let configurationFile { settings.commandOptions = " --config \(Self.shellQuoted(configurationFile))" }
            return settings
        }
        let make: @Sendable (Pairing) -> any AccessoryProvider = { pairing in
            HAPAccessoryProvider(
                controller: controller, pairing: pairing, settings: settings(pairing.accessoryPairingID),
                discovery: discovery, logger: logger)
        }
        var providers = contents.pairings.map(make)
        // A damaged pairing file: its accessories, from the cache of the last connection, are shown offline
        // with the reason, rather than left on the broker as the last run published them.
        let readable = Set(contents.pairings.map { PairingStore.fileName(forAccessory: $0.accessoryPairingID) })
        for problem in contents.problems {
            guard let file = problem.fileName, !readable.contains(file),
                let id = PairingStore.accessoryPairingID(fromFileName: file)
            else { continue }
            providers.append(
                HAPAccessoryProvider(
                    controller: controller, unreadablePairingID: id,
                    reason: "its pairing file cannot be read: \(problem)",
                    settings: settings(id), logger: logger))
        }
        return (providers, contents.pairings, Set(contents.problems.map(\.description)), make, controller)
    }

    /// `text` as one shell word: as it is when it has only safe characters, else in single quotes.
    static func shellQuoted(_ text: String) -> String {
        let safe = text.allSatisfy { $0.isLetter || $0.isNumber || "/._-+:@%=,".contains($0) }
        return safe && !text.isEmpty ? text : "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
