public import HomeModel

/// The accessories a backend sees on the network that are not paired with this gateway, for the parts
/// that show them (`bridge/discovered`, the web page) without knowing the backend: the executable wires
/// the HAP controller's DNS-SD browsing to it (docs/DESIGN.md "Parts": small protocols beside
/// `AccessoryProvider`).
public protocol AccessoryDiscovery: Sendable {
    /// The accessories seen now and not paired with this gateway, sorted by name, then id.
    func discoveredAccessories() async -> [DiscoveredAccessory]

    /// The list of `discoveredAccessories()` now, then again each time it changes (several changes close
    /// together may come as one). Every call gives a stream of its own; it ends when discovery stops.
    func discoveredAccessoryChanges() async -> AsyncStream<[DiscoveredAccessory]>
}

/// An accessory server seen on the network and not paired with this gateway (docs/DESIGN.md "Topics",
/// `bridge/discovered`).
public struct DiscoveredAccessory: Sendable, Hashable {
    /// Its device id, `AA:BB:CC:DD:EE:FF` upper-case: the `--id` of `hap2mqtt pair`.
    public var id: String
    /// The name it announces (its DNS-SD instance name).
    public var name: String
    /// Its model (`md`), when it says.
    public var model: String?
    /// What kind of accessory it is (`ci`).
    public var category: AccessoryCategory
    /// The addresses it can be reached at, the preferred first.
    public var addresses: [String]
    /// Its HAP port.
    public var port: UInt16
    /// Whether it says it is paired with a controller (another one, since not with this gateway): it must
    /// be reset or removed there before it can be paired here.
    public var pairedElsewhere: Bool

    public init(
        id: String, name: String, model: String?, category: AccessoryCategory, addresses: [String], port: UInt16,
        pairedElsewhere: Bool
    ) {
        self.id = id
        self.name = name
        self.model = model
        self.category = category
        self.addresses = addresses
        self.port = port
        self.pairedElsewhere = pairedElsewhere
    }
}
