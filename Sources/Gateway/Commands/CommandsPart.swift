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

/// Where the part's own code (the Gateway's extensions in its folder) reaches its state.
extension Gateway {
    /// Which MQTT 5 response topics are answered.
    var responseTopics: ResponseTopicPolicy { parts.commands.responseTopics }

    /// Which refused commands are logged.
    var refusals: RefusalLog {
        get { parts.commands.refusals }
        _modify { yield &parts.commands.refusals }
    }

    /// The lanes of the accessory servers busy with a slow command.
    var lanes: CommandLanes {
        get { parts.commands.lanes }
        _modify { yield &parts.commands.lanes }
    }
}
