import HAPController
import HomeModel
import SystemSupport

extension DiscoverCommand {
    /// Browses for `timeout`, then renders what was announced (`DiscoveredListing`), with whether this
    /// gateway is paired with each accessory (the state directory's pairings).
    /// - Throws: `CommandFailure` (status 1) when the Avahi daemon cannot be reached: one line that says
    ///   how to start it.
    func run(_ context: CommandContext, loggers: Loggers) async throws(CommandFailure) -> String {
        guard let browser = HAPDiscovery.systemBrowser() else {
            throw CommandFailure(message: DiscoveryError.unsupported.description)
        }
        let pairings = PairingStore(directory: StateDirectory(path: context.configuration.homekit.stateDirectory))
            .loadPairings().pairings
        let discovery = HAPDiscovery(browser: browser, logger: loggers.discovery)
        do {
            try await discovery.start(waitingForDaemon: false)
        } catch {
            throw CommandFailure(message: error.description)
        }
        try? await Task.sleep(for: timeout)
        let found = await discovery.advertisements
        await discovery.stop()
        let listing = DiscoveredListing(advertisements: found, pairings: pairings)
        if json { return listing.jsonLines }
        return found.isEmpty
            ? "no HomeKit accessory announced itself within \(Duration.describe(timeout.inSeconds))\n" : listing.table
    }
}

extension DiscoverCommand {
    /// Prints the result, or the failure as one line (`CommandOutput.finish`).
    func execute(_ context: CommandContext, loggers: Loggers) async -> Int32 {
        await CommandOutput.finish { () async throws(CommandFailure) in try await run(context, loggers: loggers) }
    }
}
