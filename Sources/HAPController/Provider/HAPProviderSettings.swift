/// How a `HAPAccessoryProvider` keeps its accessory server in sync (the `homekit` section of the
/// configuration, docs/DESIGN.md "Availability and recovery").
public struct HAPProviderSettings: Sendable, Hashable {
    /// How often characteristics without events (`ev`) are read (`homekit.poll_interval`, default 60 s).
    public var pollInterval: Duration
    /// How often a cheap read checks that a quiet connection is still alive (`homekit.keepalive_interval`,
    /// default 30 s): some accessories drop idle connections without a word (docs/hap-notes.md §7.8).
    public var keepaliveInterval: Duration
    /// Accessories (by `aid`) left out entirely: no topics, no reads, no commands
    /// (`homekit.accessories["<id>/<aid>"].exclude`).
    public var excludedAIDs: Set<Int>
    /// The delays between reconnection attempts.
    public var backoff: ReconnectBackoff
    /// Added to the `hap2mqtt pair`/`unpair` commands the log suggests, so that they act on the same state
    /// directory as the running gateway: ` --config PATH` when it was started with one; empty by default.
    public var commandOptions: String = ""

    /// Settings with docs/DESIGN.md's defaults: poll every 60 s, keep-alive every 30 s, nothing excluded,
    /// reconnect after 0.5 s growing to 60 s.
    public init(
        pollInterval: Duration = .seconds(60), keepaliveInterval: Duration = .seconds(30), excludedAIDs: Set<Int> = [],
        backoff: ReconnectBackoff = ReconnectBackoff()
    ) {
        self.pollInterval = pollInterval
        self.keepaliveInterval = keepaliveInterval
        self.excludedAIDs = excludedAIDs
        self.backoff = backoff
    }
}
