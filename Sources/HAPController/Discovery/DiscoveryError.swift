/// Why DNS-SD browsing could not run. Prints as one line that says what to do.
public enum DiscoveryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The mDNS daemon (Avahi) cannot be reached; `reason` is its client library's words.
    case daemonUnavailable(reason: String)
    /// The daemon refused to browse (`reason`).
    case browseFailed(reason: String)
    /// This system has no DNS-SD support hap2mqtt can use.
    case unsupported
    /// Avahi's client library (`library`, installed by the Debian package `package`) cannot be loaded;
    /// `reason` is the dynamic loader's.
    case libraryMissing(library: String, package: String, reason: String)

    public var description: String {
        switch self {
        case .daemonUnavailable(let reason):
            return "cannot reach the Avahi daemon (\(reason)): start it with 'systemctl start avahi-daemon' "
                + "(Debian package avahi-daemon); in Docker, use the host network, mount the host's /run/dbus "
                + "(Avahi is reached over the D-Bus system bus) and give the host a user with the container's uid "
                + "(dbus-daemon does not answer unknown users; README \"Docker\")"
        case .browseFailed(let reason):
            return "the Avahi daemon cannot browse for HomeKit accessories: \(reason)"
        case .unsupported:
            return "this system has no DNS-SD browsing hap2mqtt can use"
        case .libraryMissing(let library, let package, let reason):
            return "\(library) not found: install \(package) (\(reason))"
        }
    }
}
