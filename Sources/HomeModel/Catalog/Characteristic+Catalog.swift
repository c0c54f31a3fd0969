extension Characteristic {
    /// A characteristic of a catalog type with the catalog's format, permissions, unit, range, step,
    /// maximum length and valid values; nil when the catalog does not know `type`.
    ///
    /// Used to build accessories by hand (tests, other backends); accessories from a HAP server bring
    /// their own metadata instead.
    public static func make(iid: Int, type: HAPType, value: CharacteristicValue? = nil) -> Characteristic? {
        guard let info = HAPCatalog.characteristic(type) else { return nil }
        return Characteristic(
            iid: iid, type: type, format: info.format, permissions: info.permissions, unit: info.unit,
            minValue: info.minValue, maxValue: info.maxValue, minStep: info.minStep, maxLength: info.maxLength,
            validValues: info.validValues.isEmpty ? nil : info.validValues.map(\.value), value: value)
    }
}
