/// How a `HAPAccessoryProvider` keeps its accessory server in sync (the `homekit` section of the
/// configuration, docs/DESIGN.md "Availability and recovery").
public struct HAPProviderSettings: Sendable, Hashable {
    /// How often characteristics without events (`ev`) are read (`homekit.poll_interval`, default 60 s).
    public var pollInterval: Duration
    /// How often characteristics with events are read all the same (`homekit.catchup_interval`, default
    /// 300 s): some accessories advertise events and never send them (docs/DESIGN.md "Availability and
    /// recovery").
    public var catchupInterval: Duration
    /// How often a cheap read checks that a quiet connection is still alive (`homekit.keepalive_interval`,
    /// default 30 s): some accessories drop idle connections without a word (docs/hap-notes.md §7.8).
    public var keepaliveInterval: Duration
    /// How long the accessories of a dropped connection stay reachable while it is replaced: a reconnect
    /// within this time reports nothing (docs/DESIGN.md "Availability and recovery": a second).
    public var offlineGrace: Duration = .seconds(1)
    /// Accessories (by `aid`) left out entirely: no topics, no reads, no commands
    /// (`homekit.accessories["<id>/<aid>"].exclude`).
    public var excludedAIDs: Set<Int>
    /// The delays between reconnection attempts.
    public var backoff: ReconnectBackoff
    /// Added to the `hap2mqtt pair`/`unpair` commands the log suggests, so that they act on the same state
    /// directory as the running gateway: ` --config PATH` when it was started with one; empty by default.
    public var commandOptions: String = ""

    /// Settings with docs/DESIGN.md's defaults: poll every 60 s, catch up with evented characteristics
    /// every 300 s, keep-alive every 30 s, nothing excluded, reconnect after 0.5 s growing to 60 s.
    public init(
        pollInterval: Duration = .seconds(60), keepaliveInterval: Duration = .seconds(30), excludedAIDs: Set<Int> = [],
        backoff: ReconnectBackoff = ReconnectBackoff(), catchupInterval: Duration = .seconds(300)
    ) {
        self.pollInterval = pollInterval
        self.catchupInterval = catchupInterval
        self.keepaliveInterval = keepaliveInterval
        self.excludedAIDs = excludedAIDs
        self.backoff = backoff
    }
}
