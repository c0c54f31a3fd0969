import HomeModel
import JSON

/// The `home` section: the home's name and its rooms (HomeKit's `HMHome` and `HMRoom`; docs/DESIGN.md
/// "Topics", `bridge/info`).
struct HomeSettings: Sendable, Hashable {
    /// `home.name`.
    var name = "Home"
    /// `home.rooms`: rooms known before any accessory is placed in them, in the order written.
    var rooms: [String] = []

    init() {}

    /// Reads the section.
    /// - Throws: `ConfigurationError` for an empty name or room, or a room listed twice.
    init(reading section: inout ConfigurationSection) throws(ConfigurationError) {
        if let value = section.value("name") { name = try value.nonEmptyText() }
        if let value = section.value("rooms") {
            for item in try value.list() {
                let room = try item.nonEmptyText()
                guard !rooms.contains(room) else { throw item.invalid("the room \(room.jsonQuoted) is listed twice") }
                rooms.append(room)
            }
        }
    }

    /// The home as the home model describes it.
    var home: Home { Home(name: name, rooms: rooms.map(Room.init(name:))) }
}
