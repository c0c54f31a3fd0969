import HomeModel
import JSON

/// A group (docs/scenes-and-groups.md): a named set of services of one kind, with one state topic and one
/// `/set`. A member is a service, kept by accessory id and service iid.
struct DeviceGroup: Sendable, Hashable {
    /// The name as the user gave it (`Living room lights`).
    var name: String
    /// Its id in requests and topics (`living_room_lights`), `Slug.make(name)`; unique among groups.
    var slug: String
    var kind: GroupKind
    var members: [GroupMember]
}

/// One member of a group: a service of an accessory.
struct GroupMember: Sendable, Hashable {
    var accessory: AccessoryID
    /// The service's iid.
    var service: Int
}

/// What a group holds, from its members' HAP service type; every member has the same kind.
enum GroupKind: String, Sendable, Hashable, CaseIterable {
    case light, `switch`, outlet, cover

    /// The kind of a service of `type`; nil for a type no group takes.
    init?(serviceType type: HAPType) {
        switch type {
        case HAPType.Service.lightbulb: self = .light
        case HAPType.Service.switch: self = .switch
        case HAPType.Service.outlet: self = .outlet
        case HAPType.Service.windowCovering: self = .cover
        default: return nil
        }
    }
}

/// The characteristic types a group reads and writes (HAP spec §9), beside `HAPType.Characteristic`.
enum GroupCharacteristic {
    static let on = HAPType.Characteristic.on
    static let brightness = HAPType.Characteristic.brightness
    /// Current Position (0–100 %), read for a cover's state.
    static let currentPosition = HAPType("6D")!
    /// Target Position (0–100 %), written to move a cover.
    static let targetPosition = HAPType("7C")!
}
