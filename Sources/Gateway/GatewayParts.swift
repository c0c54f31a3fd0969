/// The Gateway's feature parts, composed in one list (docs/ARCHITECTURE.md "The Gateway's parts"): each
/// holds its own state, and only the code in its folder reaches it. The core (`Gateway`) keeps what every
/// part shares: the store, the MQTT client, the topic index, what is published per accessory and the
/// `Outbox` every step publishes through. A new feature is one more part here, with its own folder.
struct GatewayParts {
    /// Commands from the broker (`Commands/`).
    var commands: CommandsPart
    /// The store's changes, turned into the topics they change (`Following/`).
    var following = FollowingPart()
    /// Home Assistant: discovery, birth answers, `hs` (`HomeAssistant/`).
    var homeAssistant: HomeAssistantPart
    /// Management requests, options, exclusions, `bridge/discovered` (`Management/`).
    var management: ManagementPart
    /// `bridge/health`, the inbound report, `bridge/logging` (`Health/`).
    var health: HealthPart
    /// The start-up scan and the clearing of stale topics (`Convergence/`).
    var convergence = ConvergencePart()
    /// The claim on the base topic (`Ownership/`).
    var ownership: OwnershipPart
    /// Scenes and groups (`Scenes/`).
    var scenes: ScenesPart
}
