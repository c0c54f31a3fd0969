public import HomeModel

/// Name, room and home that the configuration gives one accessory (`homekit.accessories` in the YAML
/// file, docs/DESIGN.md "Configuration and files"). A nil field leaves the accessory's own.
public struct AccessoryOverride: Sendable, Hashable {
    /// Shown instead of the Name characteristic; becomes `Accessory.configuredName`.
    public var name: String?
    /// The room's name.
    public var room: String?
    /// The home's name; nil puts the accessory in the first configured home.
    public var home: String?

    /// An override; nil fields keep the accessory's own.
    public init(name: String? = nil, room: String? = nil, home: String? = nil) {
        self.name = name
        self.room = room
        self.home = home
    }
}

/// What the `HomeStore` is told by the configuration.
public struct HomeStoreConfiguration: Sendable {
    /// The homes and their rooms; accessories without a configured home belong to the first one.
    public var homes: [Home]
    /// Name, room and home per accessory id.
    public var overrides: [AccessoryID: AccessoryOverride]
    /// How long a write, read or identify may take before it fails with `HomeStoreError.timedOut`
    /// (docs/DESIGN.md "Writes": default 10 s).
    public var writeTimeout: Duration

    /// A configuration; the defaults are one home called "Home", no overrides and a 10 s time-out.
    public init(
        homes: [Home] = [Home(name: "Home")], overrides: [AccessoryID: AccessoryOverride] = [:],
        writeTimeout: Duration = .seconds(10)
    ) {
        self.homes = homes
        self.overrides = overrides
        self.writeTimeout = writeTimeout
    }
}

/// A consistent view of the home for one subscriber: the accessories at the moment of subscribing and
/// every change after it, with nothing lost or repeated in between.
public struct HomeSubscription: Sendable {
    /// Every accessory, sorted by id. Empty when subscribed before the store was ready; the accessories
    /// then arrive as one batch of `.accessoryAdded` when it becomes ready.
    public let snapshot: [Accessory]
    /// The accessories of the snapshot that are unreachable now, with the reason.
    public let unreachable: [AccessoryID: String]
    /// Changes in batches, in the order they happened; finishes when the store stops.
    public let changes: AsyncStream<[HomeChange]>
}
