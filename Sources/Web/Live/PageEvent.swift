import HomeModel
import HomeStore
import JSON

/// One event of the page's event stream (`/api/events`): `value` (`{"accessory":"<id>","iid":10,
/// "value":"true"}`, the value as its state topic carries it), `availability` (`{"accessory":…,
/// "reachable":false,"reason":"…"}`), `accessories` (the list changed: reload it), `log` (a log line).
struct PageEvent: Sendable {
    var name: String
    var json: String

    /// The events for one batch of the store's changes, leaving out the values and availability of the
    /// accessories in `hidden` (excluded by their options).
    static func events(for changes: [HomeChange], hiding hidden: Set<AccessoryID> = []) -> [PageEvent] {
        var events: [PageEvent] = []
        var listChanged = false
        for change in changes {
            switch change {
            case .valueChanged(let address, _, _) where hidden.contains(address.accessory): continue
            case .reachabilityChanged(let id, _, _) where hidden.contains(id): continue
            case .valueChanged(let address, let value, _):
                let event: JSONValue = [
                    "accessory": .string(address.accessory.description), "iid": JSONValue(address.iid),
                    "value": value.map { .string($0.mqttPayload) } ?? .null,
                ]
                events.append(PageEvent(name: "value", json: event.description))
            case .reachabilityChanged(let id, let reachable, let reason):
                let event: JSONValue = [
                    "accessory": .string(id.description), "reachable": .bool(reachable),
                    "reason": reachable ? .null : .string(reason ?? "unreachable"),
                ]
                events.append(PageEvent(name: "availability", json: event.description))
            case .accessoryAdded, .accessoryRemoved, .accessoryUpdated:
                listChanged = true
            }
        }
        if listChanged { events.append(PageEvent(name: "accessories", json: "{}")) }
        return events
    }
}
