import HomeModel
import JSON

/// A stored scene (docs/scenes-and-groups.md): a name and the value each of its characteristics takes when
/// it is recalled. Characteristics are kept by accessory id and iid, which survive a rename of the
/// accessory's topics; the label is the `<accessory>/<service>/<characteristic>` it had when stored, for
/// the answer that reports it missing after the accessory was removed.
struct Scene: Sendable, Hashable {
    /// The name as the user gave it (`Good night`).
    var name: String
    /// Its id in requests and topics (`good_night`), `Slug.make(name)`; unique among scenes.
    var slug: String
    /// The values, in the order stored.
    var values: [SceneValue]

    /// The accessories the scene names, in the order of their first value.
    var accessories: [AccessoryID] {
        var seen = Set<AccessoryID>()
        return values.map(\.address.accessory).filter { seen.insert($0).inserted }
    }

    /// `{"name":…,"slug":…,"accessories":[…],"values":N}` for `bridge/scenes` and the answers, accessories
    /// by their slug now (or the label's when gone).
    func summary(slugs: (AccessoryID) -> String?) -> JSONValue {
        let names = accessories.map { id -> JSONValue in
            .string(slugs(id) ?? values.first { $0.address.accessory == id }?.accessoryLabel ?? id.description)
        }
        return [
            "name": .string(name), "slug": .string(slug), "accessories": .array(names),
            "values": JSONValue(values.count),
        ]
    }
}

/// One characteristic's value in a scene.
struct SceneValue: Sendable, Hashable {
    var address: CharacteristicAddress
    /// The value to write, a JSON scalar as `<accessory>/set` takes it.
    var value: JSONValue
    /// `<accessory>/<service>/<characteristic>` when stored.
    var label: String

    /// The accessory part of the label.
    var accessoryLabel: String { String(label.prefix { $0 != "/" }) }
}
