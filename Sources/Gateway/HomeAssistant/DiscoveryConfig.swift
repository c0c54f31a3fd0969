public import JSON

/// One Home Assistant discovery config, ready to publish retained on
/// `<prefix>/<component>/<node_id>/<object_id>/config` (Home Assistant "MQTT Discovery").
public struct DiscoveryConfig: Sendable, Hashable {
    /// The Home Assistant platform: `light`, `switch`, `sensor`, `binary_sensor`, `climate`, `cover`, `lock`,
    /// `fan`, `alarm_control_panel`, `event`, `button`.
    public let component: String
    /// The config topic.
    public let topic: String
    /// The entity's `unique_id`: `hap2mqtt_<accessory id>_<object id>`, stable across restarts, renames and
    /// address changes because it is built from the accessory's stable id and HAP instance ids.
    public let uniqueID: String
    /// The whole config: the entity's options plus `device`, `origin`, `availability` and `unique_id`.
    public let payload: JSONValue

    /// The retained payload: the config as JSON with sorted keys (for stable diffs), as Foundation's
    /// `JSONEncoder` wrote it before.
    public var text: String { String(decoding: payload.encoded(sortingKeys: true), as: UTF8.self) }
}

/// One entity of a service before the blocks every config shares are added.
struct DiscoveryEntity: Sendable {
    /// The Home Assistant platform.
    var component: String
    /// `s<service iid>` for a service's main entity, `s<service iid>_c<characteristic iid>` for a
    /// characteristic's own entity: `[a-zA-Z0-9_-]` as Home Assistant requires, and stable.
    var objectID: String
    /// The entity name; `.null` makes Home Assistant use the device name alone.
    var name: JSONValue
    /// The platform's options: topics, payloads, templates, device class, units. An `availability` array
    /// here is added to the entries every entity has (`bridge/state` and the accessory's availability).
    var options: JSONObject
}
