import MQTT

/// The commands part's state (docs/ARCHITECTURE.md "The Gateway's parts"): commands from the broker,
/// routed by their topic to the store, answered by the `Responder` (`Commands/`). Nothing outside
/// `Commands/` reads or changes it.
struct CommandsPart {
    /// Which MQTT 5 response topics are answered.
    let responseTopics: ResponseTopicPolicy
    /// Which refused commands are logged (at most one line a minute per topic).
    var refusals = RefusalLog()
    /// The commands waiting for an accessory server busy with a read, a snapshot or an identify.
    var lanes = CommandLanes()
}

/// What the core asks of this part.
extension Gateway {
    /// Drops the commands waiting in the lanes: the gateway stops, and no answer can reach the broker.
    func stopCommands() { parts.commands.lanes.removeAll() }
}
