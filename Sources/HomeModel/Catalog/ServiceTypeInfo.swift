/// What the catalog knows about one Apple-defined service type: its name, slug and characteristics
/// (HAP spec §8; HAP-python `services.json`).
public struct ServiceTypeInfo: Sendable, Hashable {
    /// The service type.
    public let type: HAPType
    /// The CamelCase type name, e.g. `TemperatureSensor`.
    public let name: String
    /// The type name in snake case (`temperature_sensor`): `[a-z0-9_]`, unique in the catalog.
    public let slug: String
    /// The characteristic types every service of this type has.
    public let required: [HAPType]
    /// The characteristic types a service of this type may have.
    public let optional: [HAPType]

    /// An entry with the given fields; the catalog builds its own from its data.
    public init(type: HAPType, name: String, slug: String, required: [HAPType], optional: [HAPType]) {
        self.type = type
        self.name = name
        self.slug = slug
        self.required = required
        self.optional = optional
    }
}
