/// What kind of accessory an accessory server says it is: the `ci` value of its DNS-SD announcement (HAP
/// spec §6.4, Table 12-3; the numbers of docs/hap-notes.md §5 / aiohomekit's `categories.py`), shown as a word
/// (`bridge`, `lightbulb`, `lock`) in `hap2mqtt discover` and wherever discovered accessories are listed.
///
/// A number HAP does not define (or a missing `ci`) keeps its number and is called `other`.
public struct AccessoryCategory: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The `ci` number.
    public let rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let other = AccessoryCategory(rawValue: 1)
    public static let bridge = AccessoryCategory(rawValue: 2)
    public static let lightbulb = AccessoryCategory(rawValue: 5)

    /// The category as one lower-case word (snake case when HAP's name has several), e.g. `bridge`,
    /// `garage_door_opener`, `lock`; `other` for numbers HAP does not define.
    public var name: String {
        guard rawValue >= 1, rawValue < Self.names.count else { return "other" }
        return Self.names[rawValue]
    }

    /// `name`.
    public var description: String { name }

    public static func < (lhs: AccessoryCategory, rhs: AccessoryCategory) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The words by number, 1 to 33 (index 0 is unused).
    private static let names = [
        "other", "other", "bridge", "fan", "garage_door_opener", "lightbulb", "lock", "outlet", "switch",
        "thermostat", "sensor", "security_system", "door", "window", "window_covering", "programmable_switch",
        "range_extender", "ip_camera", "video_doorbell", "air_purifier", "heater", "air_conditioner", "humidifier",
        "dehumidifier", "apple_tv", "homepod", "speaker", "airport", "sprinkler", "faucet", "shower_head",
        "television", "remote", "router",
    ]
}
