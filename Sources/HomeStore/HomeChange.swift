public import HomeModel

/// A change in the home, as the store streams it to its subscribers (the Gateway).
public enum HomeChange: Sendable {
    /// A characteristic has a new value. `accessory` is the accessory after the change.
    case valueChanged(CharacteristicAddress, CharacteristicValue?, source: ValueSource)
    /// An accessory was added (after the store became ready).
    case accessoryAdded(Accessory)
    /// An accessory is gone; the value is the accessory as it was last.
    case accessoryRemoved(Accessory)
    /// An accessory's services, characteristics, name or room changed.
    case accessoryUpdated(old: Accessory, new: Accessory)
    /// An accessory became reachable or unreachable.
    case reachabilityChanged(AccessoryID, reachable: Bool, reason: String?)
}
