/// `hap2mqtt discover`: HomeKit accessories announced on the local network (mDNS `_hap._tcp`, HAP
/// spec §6.4), with their host, port and whether they can be paired.
struct DiscoverCommand: Subcommand {
    static let name = "discover"
    static let abstract = "Find HomeKit accessories on the local network (mDNS _hap._tcp)."

    init() {}
    init(_ arguments: ParsedArguments) {}
}
