public import HomeModel

/// A change in the home, as the store streams it to its subscribers (the Gateway).
public enum HomeChange: Sendable {
    /// A characteristic has a new value, in its format's normal form. Sent when the value differs from
    /// the last one (a confirmed write too, before its writer gets the outcome), for every value a
    /// `read(_:)` brought, and for every `.event` of a stateless characteristic
    /// (`HAPCatalog.isStateless`). The one way a value reaches a subscriber.
    case valueChanged(CharacteristicAddress, CharacteristicValue?, source: ValueSource)
    /// An accessory was added (after the store became ready).
    case accessoryAdded(Accessory)
    /// An accessory is gone; the value is the accessory as it was last.
    case accessoryRemoved(Accessory)
    /// An accessory's services, characteristics, metadata, name, room or home changed. `new` holds the
    /// current values; no `.valueChanged` is sent for that accessory's values in the same update.
    case accessoryUpdated(old: Accessory, new: Accessory)
    /// An accessory became reachable or unreachable.
    case reachabilityChanged(AccessoryID, reachable: Bool, reason: String?)
}
