public import HomeModel
import JSON

/// A message on `<base>/bridge/event` (not retained): `{"type":"…","data":{…}}` (docs/DESIGN.md "Topics").
public enum BridgeEvent: Sendable, Hashable {
    case accessoryAdded(id: AccessoryID, slug: String, name: String)
    case accessoryRemoved(id: AccessoryID, slug: String, name: String)
    /// The accessory's name changed; its slug (and topics) stay unless the user renames it.
    case accessoryRenamed(id: AccessoryID, slug: String, from: String, to: String)
    case availability(id: AccessoryID, slug: String, online: Bool, reason: String?)

    public var json: String {
        func object(_ type: String, _ data: JSONObject) -> String {
            JSONValue.object(["type": .string(type), "data": .object(data)]).description
        }
        let s = JSONValue.string
        switch self {
        case .accessoryAdded(let id, let slug, let name):
            return object("accessory_added", ["id": s(id.description), "accessory": s(slug), "name": s(name)])
        case .accessoryRemoved(let id, let slug, let name):
            return object("accessory_removed", ["id": s(id.description), "accessory": s(slug), "name": s(name)])
        case .accessoryRenamed(let id, let slug, let from, let to):
            return object(
                "accessory_renamed",
                ["id": s(id.description), "accessory": s(slug), "from": s(from), "to": s(to)])
        case .availability(let id, let slug, let online, let reason):
            var fields: JSONObject = [
                "id": s(id.description), "accessory": s(slug), "state": s(online ? "online" : "offline"),
            ]
            if let reason { fields.append("reason", s(reason)) }
            return object("availability", fields)
        }
    }
}
