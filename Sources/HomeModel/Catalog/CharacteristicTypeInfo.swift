/// What the catalog knows about one Apple-defined characteristic type: its name, slug, format, permissions
/// and constraints as HAP defines them (HAP spec §9; HAP-python `characteristics.json`).
///
/// An accessory's own metadata (`Characteristic`) wins over these defaults; the catalog fills gaps, names
/// the type for topics, and maps valid-value names (`Secured`) to their integers.
public struct CharacteristicTypeInfo: Sendable, Hashable {
    /// The characteristic type.
    public let type: HAPType
    /// The CamelCase type name, e.g. `LockTargetState`.
    public let name: String
    /// The type name in snake case (`lock_target_state`): `[a-z0-9_]`, unique in the catalog.
    public let slug: String
    /// The value format (HAP spec Table 6-5).
    public let format: CharacteristicFormat
    /// The permissions the definition gives (`pr`, `pw`, `ev`, …).
    public let permissions: Permissions
    /// HAP unit name (`celsius`, `percentage`, `arcdegrees`, `lux`, `seconds`), nil when unitless.
    public let unit: String?
    /// The smallest value, in `unit`.
    public let minValue: Double?
    /// The largest value, in `unit`.
    public let maxValue: Double?
    /// The step between values, counted from `minValue` (or 0).
    public let minStep: Double?
    /// Maximum length of a string value in UTF-8 bytes, when the definition sets one.
    public let maxLength: Int?
    /// The named values of an enumeration, ordered by value; empty when the type is not an enumeration.
    public let validValues: [ValidValue]

    /// An entry with the given fields; the catalog builds its own from its data.
    public init(
        type: HAPType, name: String, slug: String, format: CharacteristicFormat, permissions: Permissions,
        unit: String? = nil, minValue: Double? = nil, maxValue: Double? = nil, minStep: Double? = nil,
        maxLength: Int? = nil, validValues: [ValidValue] = []
    ) {
        self.type = type
        self.name = name
        self.slug = slug
        self.format = format
        self.permissions = permissions
        self.unit = unit
        self.minValue = minValue
        self.maxValue = maxValue
        self.minStep = minStep
        self.maxLength = maxLength
        self.validValues = validValues
    }

    /// The integer of the valid value called `name`, compared in any case and ignoring everything but
    /// letters and digits (`secured`, `SECURED`, `counter_clockwise` all match); nil when none matches.
    public func validValue(named name: String) -> Int? {
        let key = ValidValue.matchKey(name)
        guard !key.isEmpty else { return nil }
        return validValues.first { ValidValue.matchKey($0.name) == key }?.value
    }
}

/// One named value of an enumerated characteristic, e.g. `Secured` = 1 for LockTargetState.
public struct ValidValue: Sendable, Hashable {
    /// The name as the catalog spells it (HAP-python's spelling, e.g. `SecuredPhysically,Exterior`).
    public let name: String
    /// The integer HAP sends for it.
    public let value: Int

    /// A named value.
    public init(name: String, value: Int) {
        self.name = name
        self.value = value
    }

    /// The form names are compared in: lower-case letters and digits only.
    static func matchKey(_ name: String) -> String {
        String(name.lowercased().filter { $0.isLetter || $0.isNumber })
    }
}
