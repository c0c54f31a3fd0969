/// How an `MQTTClient` reaches and talks to its broker. Every field but `url` and `clientID` has a
/// default; `MQTTClient.init` checks the whole configuration and throws `MQTTError.invalidURL` or
/// `.invalidConfiguration` before anything touches the network.
public struct MQTTConfiguration: Sendable {
    /// `mqtt://host[:port]` (port 1883 by default) or `mqtts://host[:port]` (TLS, port 8883 by default).
    /// IPv6 literals go in brackets: `mqtt://[::1]:1883`.
    public var url: String
    /// The MQTT client identifier. Empty lets the broker assign one (MQTT 5 §3.1.3.1). A second client
    /// with the same identifier takes the session over and disconnects the first.
    public var clientID: String
    /// How log lines name the setting that holds `clientID` when they tell the user to change it (another
    /// client connects with the same id); a program with a configuration file of its own passes its key.
    public var clientIDSetting = "clientID"
    /// MQTT 5 by default; `.v311` for old brokers.
    public var protocolVersion: MQTTProtocolVersion = .v5
    /// Sent in CONNECT when set. MQTT 3.1.1 needs a user name whenever a password is set.
    public var username: String?
    /// Sent in CONNECT; never logged.
    public var password: String?
    /// The certificate files of an `mqtts://` connection; none by default.
    public var tls = MQTTTLSFiles()
    /// Keeps the client's session on the broker between connections, so QoS 1 and 2 messages published
    /// to its subscriptions while it is away (a broker restart, a network outage) are delivered after the
    /// reconnect instead of lost. MQTT 5: Clean Start off and this Session Expiry Interval (§3.1.2.4,
    /// §3.1.2.11.2), in whole seconds (a fraction is dropped), 1...4294967294; MQTT 3.1.1: Clean Session off (§3.1.2.4), and
    /// the broker decides how long it keeps the session (mosquitto: `persistent_client_expiration`).
    /// nil (the default): a clean start on every connection. Needs a non-empty `clientID`, which is
    /// what the broker finds the session by. A broker that restarts keeps sessions only with its own
    /// persistence on.
    public var sessionExpiry: Duration?
    /// Seconds between keep-alive pings (MQTT 5 §3.1.2.10): 0 (off) or 5...65535. A broker that hears
    /// nothing for 1.5 times this publishes the client's last will.
    public var keepAlive: Int = 30
    /// The last will (MQTT 5 §3.1.2.5): published by the broker when the connection ends without a
    /// DISCONNECT (crash, network loss, keep-alive timeout), never after `disconnect()`.
    public var will: MQTTMessage?
    /// Wait before reconnect attempts: `min` after the first failure, doubling (with ±20 % jitter) up to
    /// `max`. Starts again at `min` after every connection that lasted 10 s; one that the broker ends
    /// sooner (another client with the same `clientID` took the session) counts as a failed attempt.
    public var reconnectDelay: (min: Duration, max: Duration) = (.milliseconds(500), .seconds(30))
    /// How long a connection attempt may take from the TCP connect to the broker's CONNACK.
    public var connectTimeout: Duration = .seconds(10)
    /// What is kept of published messages until the broker has them: the queue while reconnecting and
    /// the send window.
    public var outbound = MQTTOutboundLimits()
    /// Forwards libmosquitto's own debug lines (one per packet) to the log at `.debug`. Off by default
    /// because it costs a formatted string per message on busy clients: then, on an established plain-TCP
    /// connection, libmosquitto's log is not listened to at all (its only line above debug level there is
    /// a warning about an acknowledgement of an unknown packet id); while connecting, and over TLS, its
    /// warnings and errors still reach the log.
    public var logLibraryDebug: Bool = false
    /// What is kept of received messages until they are read: the payload limit, the queue's bounds and
    /// which messages collapse. By default no limit and no collapsing.
    public var inbound = MQTTInboundLimits()

    /// A configuration with every other field at its default.
    public init(url: String, clientID: String) {
        self.url = url
        self.clientID = clientID
    }
}

extension MQTTConfiguration {
    /// Checks the settings libmosquitto does not check itself.
    /// - Throws: `MQTTError.invalidConfiguration` naming the setting.
    func validate() throws(MQTTError) {
        if keepAlive != 0 && !(5...65_535).contains(keepAlive) {
            throw .invalidConfiguration("keepAlive must be 0 (off) or 5...65535 seconds, not \(keepAlive)")
        }
        if reconnectDelay.min <= .zero || reconnectDelay.max < reconnectDelay.min {
            throw .invalidConfiguration(
                "reconnectDelay needs 0 < min <= max (min \(reconnectDelay.min), max \(reconnectDelay.max))")
        }
        if connectTimeout <= .zero {
            throw .invalidConfiguration("connectTimeout must be positive")
        }
        if outbound.maxQueuedMessages < 0 {
            throw .invalidConfiguration("maxQueuedMessages must not be negative")
        }
        if outbound.sendWindowBytes < 0 {
            throw .invalidConfiguration("sendWindowBytes must not be negative")
        }
        if let sessionExpiry {
            guard !clientID.isEmpty else {
                throw .invalidConfiguration(
                    "a persistent session (sessionExpiry) needs a clientID: the broker finds the session by it")
            }
            guard (1...4_294_967_294).contains(sessionExpiry.components.seconds) else {
                throw .invalidConfiguration(
                    "sessionExpiry must be 1...4294967294 seconds, not \(sessionExpiry); nil means a clean start")
            }
        }
        if clientID.utf8.count > 65_535 || clientID.utf8.contains(0) {
            throw .invalidConfiguration("clientID must be at most 65535 bytes without NUL")
        }
    }
}
