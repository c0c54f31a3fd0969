/// A characteristic of a service: one value of an accessory, addressed by its instance id `iid`
/// (HAP spec §6.3.3; the JSON object of `GET /accessories`).
///
/// Constraints are the accessory's own metadata where it sent them (`minValue`, `maxValue`, `minStep`,
/// `maxLen`, `maxDataLen`, `valid-values`, `valid-values-range`); units are HAP's (`percentage`,
/// `arcdegrees`, `celsius`, `lux`, `seconds`, or a vendor's string).
public struct Characteristic: Sendable, Hashable {
    /// Instance id, unique within the accessory.
    public var iid: Int
    public var type: HAPType
    public var format: CharacteristicFormat
    public var permissions: Permissions
    /// HAP unit name (`celsius`, `percentage`, `arcdegrees`, `lux`, `seconds`), nil when unitless.
    public var unit: String?
    public var minValue: Double?
    public var maxValue: Double?
    public var minStep: Double?
    /// Maximum length of a `string` value in UTF-8 bytes (HAP default 64).
    public var maxLength: Int?
    /// Maximum length of a `data` value in bytes.
    public var maxDataLength: Int?
    /// The only integers the characteristic accepts, when the accessory restricts them.
    public var validValues: [Int]?
    /// An inclusive range of accepted integers (`valid-values-range`).
    public var validValuesRange: ClosedRange<Int>?
    /// The last known value; nil before the first read or for write-only characteristics.
    public var value: CharacteristicValue?
    /// The accessory's description text, when it sent one.
    public var descriptionText: String?

    public init(
        iid: Int, type: HAPType, format: CharacteristicFormat, permissions: Permissions,
        unit: String? = nil, minValue: Double? = nil, maxValue: Double? = nil, minStep: Double? = nil,
        maxLength: Int? = nil, maxDataLength: Int? = nil, validValues: [Int]? = nil,
        validValuesRange: ClosedRange<Int>? = nil, value: CharacteristicValue? = nil,
        descriptionText: String? = nil
    ) {
        self.iid = iid
        self.type = type
        self.format = format
        self.permissions = permissions
        self.unit = unit
        self.minValue = minValue
        self.maxValue = maxValue
        self.minStep = minStep
        self.maxLength = maxLength
        self.maxDataLength = maxDataLength
        self.validValues = validValues
        self.validValuesRange = validValuesRange
        self.value = value
        self.descriptionText = descriptionText
    }

    public var isReadable: Bool { permissions.contains(.pairedRead) }
    public var isWritable: Bool { permissions.contains(.pairedWrite) }
    public var supportsEvents: Bool { permissions.contains(.events) }

    /// Whether `other` describes the same characteristic apart from its value.
    public func hasSameMetadata(as other: Characteristic) -> Bool {
        var a = self
        var b = other
        a.value = nil
        b.value = nil
        return a == b
    }
}
