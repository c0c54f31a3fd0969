/// What one client can make the web page's server hold: the bounds that keep the gateway working
/// however many requests arrive (docs/DESIGN.md "Web page").
public struct HTTPLimits: Sendable, Hashable {
    /// Connections open at once; at the limit libmicrohttpd stops accepting, and one more waits in the
    /// listen queue until a connection closes.
    public var connections: Int
    /// Connections open at once from one client address (libmicrohttpd's per-IP limit): one more is
    /// closed as it is accepted, so one client cannot take the connections everyone shares. A browser
    /// opens up to 6 to one site, plus the event stream of each tab.
    public var connectionsPerClient: Int
    /// Event streams open at once; one more is answered 503.
    public var eventStreams: Int
    /// The largest request body in bytes; a larger one is answered 413 before it is read.
    public var maxBody: Int
    /// An idle connection is closed after this many seconds: what a client that opens connections and
    /// sends nothing can hold them for. Above the event stream's keep-alive comment (every 15 s), which
    /// counts as activity.
    public var idleTimeoutSeconds: Int
    /// A request's head and body must have arrived this many seconds after the connection opened (or its
    /// previous answer was sent); past that the connection is closed, however steadily it trickles bytes
    /// (`ConnectionWatch`).
    public var requestSeconds: Int
    /// Events waiting for one slow event-stream client; past this its stream is closed (the page then
    /// reconnects and reloads what it shows).
    public var queuedEvents: Int

    /// The limits `hap2mqtt run` uses.
    public init(
        connections: Int = 64, connectionsPerClient: Int = 12, eventStreams: Int = 8, maxBody: Int = 16 * 1024,
        idleTimeoutSeconds: Int = 30, requestSeconds: Int = 10, queuedEvents: Int = 2000
    ) {
        self.connections = connections
        self.connectionsPerClient = connectionsPerClient
        self.requestSeconds = requestSeconds
        self.eventStreams = eventStreams
        self.maxBody = maxBody
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.queuedEvents = queuedEvents
    }
}
