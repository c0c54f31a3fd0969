import HomeStore

/// The accessory providers `run` starts: one per paired accessory server in the state directory.
enum AccessoryProviders {
    static func make(_ configuration: Configuration, stateDirectory: StateDirectory) async -> [any AccessoryProvider] {
        []
    }
}
