/// The Home Assistant part's state (docs/ARCHITECTURE.md "The Gateway's parts"): discovery configs, the
/// answers to Home Assistant's birth message and the `hs` commands (`HomeAssistant/`).
struct HomeAssistantPart {
    /// Builds the discovery configs from the options in use.
    var discovery: HomeAssistantDiscovery
    /// Discovery config topics cleared this run because discovery is off or an exclusion applies.
    var clearedDiscoveryTopics: Set<String> = []
    /// Whether an answer to Home Assistant's birth message is waiting for its delay.
    var births = BirthAnswers()
}

/// What the other parts may ask of this one.
extension Gateway {
    /// The `node_id` of the gateway's own device in Home Assistant (`HomeAssistantDiscovery.bridgeIdentifier`).
    var bridgeDiscoveryIdentifier: String { parts.homeAssistant.discovery.bridgeIdentifier }
}
