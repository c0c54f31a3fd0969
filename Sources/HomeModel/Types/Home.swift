/// A home: a name and its rooms, as the configuration defines them (HomeKit's `HMHome`/`HMRoom`).
public struct Home: Sendable, Hashable, Codable {
    public var name: String
    public var rooms: [Room]

    public init(name: String, rooms: [Room] = []) {
        self.name = name
        self.rooms = rooms
    }
}

/// A room of a home.
public struct Room: Sendable, Hashable, Codable {
    public var name: String

    public init(name: String) { self.name = name }
}
