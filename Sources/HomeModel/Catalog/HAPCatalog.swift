/// The catalog of Apple-defined service and characteristic types: UUID ⇄ name and slug, format,
/// permissions, range, step, valid values, and each service's characteristics (HAP spec §8–§9).
///
/// The catalog is data inside the module (`CatalogData+*.swift`), parsed once on first use; it needs no
/// resource bundle. Look-ups by type are dictionary look-ups.
public enum HAPCatalog {
    /// The catalog entry of a characteristic type; nil for vendor types and Apple types it lacks.
    public static func characteristic(_ type: HAPType) -> CharacteristicTypeInfo? {
        table.characteristicsByType[type]
    }

    /// The catalog entry of a service type; nil for vendor types and Apple types it lacks.
    public static func service(_ type: HAPType) -> ServiceTypeInfo? { table.servicesByType[type] }

    /// The characteristic type called `name`: its CamelCase name (`ColorTemperature`) or its slug
    /// (`color_temperature`), in any case.
    public static func characteristic(named name: String) -> CharacteristicTypeInfo? {
        table.characteristicsByName[name.lowercased()]
    }

    /// The service type called `name`: its CamelCase name (`TemperatureSensor`) or its slug
    /// (`temperature_sensor`), in any case.
    public static func service(named name: String) -> ServiceTypeInfo? { table.servicesByName[name.lowercased()] }

    /// Every characteristic type of the catalog, ordered by type.
    public static var characteristics: [CharacteristicTypeInfo] { table.characteristics }

    /// Every service type of the catalog, ordered by type.
    public static var services: [ServiceTypeInfo] { table.services }

    /// The topic name of a characteristic type: the catalog slug (`color_temperature`), or the lower-case
    /// full UUID for a type the catalog does not know (docs/DESIGN.md "Identity and names").
    public static func characteristicSlug(_ type: HAPType) -> String {
        characteristic(type)?.slug ?? type.uuid.lowercased()
    }

    /// The topic name of a service type: the catalog slug (`temperature_sensor`), or the lower-case full
    /// UUID for a type the catalog does not know.
    public static func serviceSlug(_ type: HAPType) -> String { service(type)?.slug ?? type.uuid.lowercased() }

    /// Whether a characteristic type only reports events and holds no state, so that every event counts,
    /// even one equal to the last (ProgrammableSwitchEvent `73`, ButtonEvent `126`; docs/hap-notes.md §4.8).
    public static func isStateless(_ type: HAPType) -> Bool { statelessTypes.contains(type) }

    private static let statelessTypes: Set<HAPType> = Set(["73", "126"].compactMap(HAPType.init))

    /// The parsed tables, built on first use (a `static let` is initialised once, thread-safely).
    static let table = CatalogTable(characteristicRows: characteristicTable, serviceRows: serviceTable)
}
