import HomeModel
import HomeStore

/// The management part's state (docs/ARCHITECTURE.md "The Gateway's parts"): the management requests,
/// the accessories' saved options and exclusions, and `bridge/discovered` (`Management/`).
struct ManagementPart {
    /// The operations behind the management requests (`Gateway+ManagementRequests.swift`).
    let management: Management?
    /// The options saved through `bridge/request/options`, by accessory (`Gateway+Options.swift`).
    var accessoryOptions: [AccessoryID: AccessoryOptions] = [:]
    /// The streams of `exclusions()` (`Gateway+Exclusions.swift`).
    var exclusionFollowers = ExclusionFollowers()
}

/// What the other parts may ask of this one.
extension Gateway {
    /// The options saved for accessory `id` (for `bridge/accessories` and the web page's list).
    func options(of id: AccessoryID) -> AccessoryOptions? { parts.management.accessoryOptions[id] }

    /// Tells the followers of `exclusions()` the excluded set again: an accessory moved to another slug,
    /// which changes the list as the web page shows it.
    func resendExclusions() { parts.management.exclusionFollowers.send(excludedAccessories) }

    /// Ends the streams of `exclusions()`: the gateway stops.
    func stopExclusionFollowers() { parts.management.exclusionFollowers.finishAll() }

    /// The accessories seen on the network and not paired here; nil when discovery is off.
    var accessoryDiscovery: (any AccessoryDiscovery)? { parts.management.management?.discovery }
}
