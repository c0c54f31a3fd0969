import HomeModel

/// One accessory as the store holds it: the accessory, its owning provider, its reachability, and an index
/// from iid to the characteristic's position, so a value update touches one characteristic in place.
struct StoredAccessory: Sendable {
    /// Where a characteristic sits in `accessory.services`.
    struct Location: Sendable, Hashable {
        let service: Int
        let characteristic: Int
    }

    /// Name, room and home as the provider sent them, before the configuration's overrides.
    struct Placement: Sendable, Hashable {
        var configuredName: String?
        var room: String?
        var home: String?
    }

    private(set) var accessory: Accessory
    let provider: Int
    var placement: Placement
    var reachable = true
    var unreachableReason: String?
    private(set) var locations: [Int: Location] = [:]
    /// iids that appear more than once (the first one wins).
    private(set) var duplicateIIDs: [Int] = []

    init(accessory: Accessory, placement: Placement, provider: Int) {
        self.accessory = accessory
        self.placement = placement
        self.provider = provider
        for (s, service) in accessory.services.enumerated() {
            for (c, characteristic) in service.characteristics.enumerated() {
                if locations[characteristic.iid] == nil {
                    locations[characteristic.iid] = Location(service: s, characteristic: c)
                } else {
                    duplicateIIDs.append(characteristic.iid)
                }
            }
        }
    }

    func characteristic(_ iid: Int) -> Characteristic? {
        locations[iid].map { accessory.services[$0.service].characteristics[$0.characteristic] }
    }

    /// Stores `value` (in the format's normal form) and returns the value before and after, and the
    /// characteristic's type. Works on the characteristic in place: a copy of it retains and releases its
    /// metadata for every value (hap2mqtt-bench fanout).
    mutating func setValue(_ value: CharacteristicValue, at location: Location) -> (
        old: CharacteristicValue?, new: CharacteristicValue, type: HAPType
    ) {
        modifyCharacteristic(at: location) { characteristic in
            let old = characteristic.value
            let new = characteristic.normalized(value)
            characteristic.value = new
            return (old, new, characteristic.type)
        }
    }

    /// Like `setValue(_:at:)` for characteristic `iid`, when `provider` owns this accessory; nil when the
    /// accessory is another provider's or has no such characteristic, `.some(nil)` (nothing stored) for
    /// a nil `value`. Mutating, so that it runs on the entry in place.
    mutating func setValue(_ value: CharacteristicValue?, iid: Int, from provider: Int) -> (
        old: CharacteristicValue?, new: CharacteristicValue, type: HAPType
    )?? {
        guard self.provider == provider, let location = locations[iid] else { return nil }
        guard let value else { return .some(nil) }
        return setValue(value, at: location)
    }

    /// The stored value of the characteristic at `location`.
    func value(at location: Location) -> CharacteristicValue? {
        accessory.services[location.service].characteristics[location.characteristic].value
    }

    private mutating func modifyCharacteristic<T>(at location: Location, _ body: (inout Characteristic) -> T) -> T {
        body(&accessory.services[location.service].characteristics[location.characteristic])
    }

    /// Replaces the accessory by one of the same structure (values may differ).
    mutating func replaceValues(with other: Accessory) { accessory = other }

    /// Replaces the name, room and home.
    mutating func place(configuredName: String?, room: String?, home: String?) {
        accessory.configuredName = configuredName
        accessory.room = room
        accessory.home = home
    }
}

extension Accessory {
    /// Whether `other` has the same services, characteristics, metadata, name, room and home, whatever
    /// the values.
    func hasSameStructure(as other: Accessory) -> Bool {
        guard id == other.id, configuredName == other.configuredName, room == other.room, home == other.home,
            services.count == other.services.count
        else { return false }
        for (a, b) in zip(services, other.services) {
            guard a.iid == b.iid, a.type == b.type, a.isPrimary == b.isPrimary, a.isHidden == b.isHidden,
                a.linked == b.linked, a.characteristics.count == b.characteristics.count
            else { return false }
            for (x, y) in zip(a.characteristics, b.characteristics) where !x.hasSameMetadata(as: y) { return false }
        }
        return true
    }

    /// The same accessory with every value in its format's normal form.
    func normalizingValues() -> Accessory {
        var copy = self
        for s in copy.services.indices {
            for c in copy.services[s].characteristics.indices {
                let characteristic = copy.services[s].characteristics[c]
                if let value = characteristic.value {
                    copy.services[s].characteristics[c].value = characteristic.normalized(value)
                }
            }
        }
        return copy
    }
}
