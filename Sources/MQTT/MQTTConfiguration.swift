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
    /// PEM file of the certificate authorities that sign the broker's certificate. Without it an
    /// `mqtts://` client trusts the system's CA store: OpenSSL's default file and directory, or those
    /// that `SSL_CERT_FILE` and `SSL_CERT_DIR` name; `MQTTClient.init` throws when there is none. There is deliberately no "insecure" mode: the
    /// broker's certificate and host name are always verified.
    public var caFile: String?
    /// PEM client certificate, for brokers that require one; needs `keyFile`.
    public var certFile: String?
    /// PEM private key of `certFile`, unencrypted.
    public var keyFile: String?
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
    /// How many QoS 1 and 2 messages `publish` keeps while the client is reconnecting; they are sent in
    /// order after the next CONNACK. Beyond this the oldest are dropped (with a warning in the log).
    /// QoS 0 messages published while disconnected are dropped at once.
    public var maxQueuedMessages: Int = 10_000
    /// How many bytes (payloads and topics, plus 256 a message for libmosquitto's own records) of
    /// published messages libmosquitto may hold at once: QoS 0
    /// messages not yet written to the socket, QoS 1/2 messages not yet acknowledged. Later messages wait
    /// in this client, in order, and go out as earlier ones complete. libmosquitto copies every payload
    /// it takes; a gateway publishing its whole home at once would otherwise hold a second copy of it
    /// (8 MB at 10,000 characteristics). A message larger than the window goes alone. 0: no limit.
    public var sendWindowBytes: Int = 512 * 1024
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
        if maxQueuedMessages < 0 {
            throw .invalidConfiguration("maxQueuedMessages must not be negative")
        }
        if sendWindowBytes < 0 {
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
