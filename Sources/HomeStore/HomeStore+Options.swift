public import HomeModel

/// The names and rooms saved through the bridge API (`bridge/request/options`, `Management.setOptions`):
/// a layer over the configuration's `homekit.accessories`, kept apart from it so that a reload of the
/// configuration (SIGHUP) leaves them in place, and a key not saved lets the configuration's value show.
extension HomeStore {
    /// Replaces every saved override (at start, before the providers sync). Accessories present whose
    /// name, room or home changes are reported as `.accessoryUpdated`.
    public func setOptionOverrides(_ overrides: [AccessoryID: AccessoryOverride]) {
        let changed = Set(optionOverrides.keys).union(overrides.keys)
        optionOverrides = overrides.filter { $0.value != AccessoryOverride() }
        placeAgain(changed.sorted())
    }

    /// Replaces the saved override of accessory `id` (nil, or one without values: none). When its name,
    /// room or home changes, it is reported as `.accessoryUpdated`.
    public func setOptionOverride(_ override: AccessoryOverride?, for id: AccessoryID) {
        optionOverrides[id] = override == AccessoryOverride() ? nil : override
        placeAgain([id])
    }
}
