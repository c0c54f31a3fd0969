/// What a provider learned about how its accessory server misbehaves (`bridge/health`, the web page;
/// docs/DESIGN.md "Availability and recovery").
public struct LearnedProfile: Sendable, Hashable {
    /// Characteristics (`aid.iid`) that advertise events but did not send them: polled instead.
    public var polledInsteadOfEvents: [String]
    /// The most characteristics one read asks for, after the accessory answered a larger read
    /// `-70407` (out of resources); nil when it never did.
    public var readBatchLimit: Int?
    /// The shortest quiet time after which the accessory ended a connection; nil when it never did.
    public var idleLimit: Duration?
    /// The keep-alive interval in use.
    public var keepalive: Duration

    public init(polledInsteadOfEvents: [String], readBatchLimit: Int?, idleLimit: Duration?, keepalive: Duration) {
        self.polledInsteadOfEvents = polledInsteadOfEvents
        self.readBatchLimit = readBatchLimit
        self.idleLimit = idleLimit
        self.keepalive = keepalive
    }
}
