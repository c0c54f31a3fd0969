/// How the discovery configs reach Home Assistant (its "MQTT Discovery": "Device discovery payload" and
/// "Single component discovery payload").
public enum DiscoveryFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// One retained config per device, `<prefix>/device/<node_id>/config`, its entities in `cmps`, the
    /// device, origin and availability once: Home Assistant 2024.11 and later.
    case device
    /// One retained config per entity, `<prefix>/<component>/<node_id>/<object_id>/config`: every release,
    /// and the only one before 2024.11 (2024.3 logs "Integration device is not supported" for the other).
    case entity

    public var description: String { rawValue }

    /// The other format.
    public var other: DiscoveryFormat { self == .device ? .entity : .device }
}
