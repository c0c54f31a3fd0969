/// `hap2mqtt discover`: meant to list HomeKit accessories announced on the local network (mDNS
/// `_hap._tcp`, HAP spec §6.4). Not built yet (docs/DESIGN.md lists it); it says how to find them with
/// avahi-browse and exits 1.
struct DiscoverCommand: Subcommand {
    static let name = "discover"
    static let abstract = "Not in this version: says how to find accessories with avahi-browse."

    init() {}
    init(_ arguments: ParsedArguments) {}
}
