import HomeModel

/// The `homekit` section: where the controller keeps its state, how often it polls and how long it
/// waits, and per-accessory overrides (docs/DESIGN.md "Writes", "Availability and recovery").
struct HomeKitSettings: Sendable, Hashable {
    /// `homekit.state_dir`: controller identity, pairings and the slug map, relative to the working
    /// directory unless absolute.
    var stateDirectory = "./data"
    /// `homekit.poll_interval`: how often characteristics without events are read.
    var pollInterval = Duration.seconds(60)
    /// `homekit.catchup_interval`: how often characteristics with events are read all the same.
    var catchupInterval = Duration.seconds(300)
    /// `homekit.write_timeout`: how long a write waits for the accessory's answer.
    var writeTimeout = Duration.seconds(10)
    /// `homekit.keepalive_interval`: the time between cheap reads that keep a quiet connection alive
    /// and notice a dead one.
    var keepaliveInterval = Duration.seconds(30)
    /// `homekit.snapshot_interval`: how often a camera's snapshot is fetched and published; zero only when
    /// asked.
    var snapshotInterval = Duration.seconds(60)
    /// `homekit.discovery`: find accessories on the network and follow paired ones to new addresses,
    /// with DNS-SD through the Avahi daemon (README "Finding accessories"); false uses the stored
    /// addresses only, without any multicast.
    var discovery = true
    /// `homekit.accessories`: overrides by accessory id.
    var accessories: [AccessoryID: AccessorySettings] = [:]

    init() {}

    /// Reads the section.
    /// - Throws: `ConfigurationError` for an empty state directory, a time that is not a positive
    ///   number of seconds up to a day, a `discovery` that is not true or false, or a bad accessory entry.
    init(reading section: inout ConfigurationSection) throws(ConfigurationError) {
        if let value = section.value("state_dir") { stateDirectory = try value.nonEmptyText() }
        let day = 0.0...86_400
        if let value = section.value("poll_interval") { pollInterval = try value.seconds(in: day, allowsZero: false) }
        if let value = section.value("catchup_interval") {
            catchupInterval = try value.seconds(in: day, allowsZero: false)
        }
        if let value = section.value("write_timeout") { writeTimeout = try value.seconds(in: day, allowsZero: false) }
        if let value = section.value("keepalive_interval") {
            keepaliveInterval = try value.seconds(in: day, allowsZero: false)
        }
        if let value = section.value("snapshot_interval") {
            snapshotInterval = try value.seconds(in: day, allowsZero: true)
        }
        if let value = section.value("discovery") { discovery = try value.bool() }
        if let value = section.value("accessories") {
            for (key, entry) in try value.entries() {
                guard let id = AccessoryID(try key.text()), !id.serverID.isEmpty, id.aid >= 1 else {
                    throw key.wrongType("an accessory id \"<pairing id>/<aid>\" such as \"AA:BB:CC:DD:EE:FF/2\"")
                }
                guard accessories[id] == nil else { throw key.invalid("the accessory \(id) is listed twice") }
                accessories[id] = try AccessorySettings(entry)
            }
        }
    }
}

/// What the configuration says about one accessory (`homekit.accessories["<pairing id>/<aid>"]`):
/// the name, room and home to use instead of the accessory's own, or that it is left out entirely.
struct AccessorySettings: Sendable, Hashable {
    /// The name to use for the accessory and its topic slug instead of its Name characteristic.
    var name: String?
    /// The room it is in.
    var room: String?
    /// The home it belongs to, when not `home.name`.
    var home: String?
    /// True to leave the accessory out: no topics, no discovery, no commands.
    var exclude = false

    init(name: String? = nil, room: String? = nil, home: String? = nil, exclude: Bool = false) {
        self.name = name
        self.room = room
        self.home = home
        self.exclude = exclude
    }

    /// Reads one entry (a mapping of `name`, `room`, `home`, `exclude`; empty means no overrides).
    /// - Throws: `ConfigurationError` for an unknown key, empty text or a non-boolean `exclude`.
    init(_ value: ConfigurationValue) throws(ConfigurationError) {
        var section = try value.section()
        name = try section.value("name")?.nonEmptyText()
        room = try section.value("room")?.nonEmptyText()
        home = try section.value("home")?.nonEmptyText()
        exclude = try section.value("exclude")?.bool() ?? false
        try section.finish()
    }
}
