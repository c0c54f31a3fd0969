/// Browses DNS-SD (RFC 6763) for the services of one type on the local network: the part of discovery
/// that talks to the system's mDNS daemon (Avahi on Linux, `AvahiServiceBrowser`). `HAPDiscovery` reads
/// what it finds, so that the HAP provider and the tests do not care which implementation runs.
///
/// An implementation keeps each service resolved for as long as it is announced and reports it again
/// whenever its host, port, addresses or TXT record change. It bounds what it keeps (services, TXT
/// strings), since anyone on the network can announce anything.
public protocol ServiceBrowser: Sendable {
    /// Starts browsing for services of `type` (`_hap._tcp`) in the default domain and returns what is
    /// found, until `stop()`; a browse that was running ends.
    /// - Parameter waitingForDaemon: when true and the daemon is not running, browsing begins once it
    ///   starts (the stream says `.unavailable` meanwhile); when false that is an error.
    /// - Throws: `DiscoveryError.daemonUnavailable` when the daemon cannot be reached (with
    ///   `waitingForDaemon`: only when its bus cannot be reached at all).
    func browse(type: String, waitingForDaemon: Bool) async throws(DiscoveryError) -> AsyncStream<ServiceBrowserEvent>

    /// Stops browsing and finishes the stream. Nothing is reported after it returns.
    func stop() async
}

/// What a `ServiceBrowser` reports.
public enum ServiceBrowserEvent: Sendable, Hashable {
    /// A service appeared or changed: its whole current state.
    case found(ServiceInstance)
    /// The service with this instance name is no longer announced.
    case removed(name: String)
    /// The daemon cannot be reached (it stopped, or has not started): every service reported so far
    /// counts as gone. Browsing goes on by itself once the daemon is back.
    case unavailable(reason: String)
    /// Browsing runs (again): the services are reported as they are found.
    case browsing
}

/// One resolved DNS-SD service instance (RFC 6763 §4): what its SRV, TXT and address records say.
public struct ServiceInstance: Sendable, Hashable {
    /// The instance name, e.g. `Kitchen Bridge` (UTF-8, at most 63 bytes in DNS).
    public var name: String
    /// The host its SRV record names, e.g. `Kitchen-Bridge.local`.
    public var hostName: String
    /// The port its SRV record names.
    public var port: UInt16
    /// The IP addresses of the host as the daemon found them (IPv4 dotted, IPv6 textual), unordered.
    public var addresses: [String]
    /// The TXT record's strings in their order, each `key=value` bytes (RFC 6763 §6), as received.
    public var txt: [[UInt8]]

    public init(name: String, hostName: String, port: UInt16, addresses: [String], txt: [[UInt8]]) {
        self.name = name
        self.hostName = hostName
        self.port = port
        self.addresses = addresses
        self.txt = txt
    }
}
