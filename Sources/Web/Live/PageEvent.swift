internal import Foundation
import HomeModel
import HomeStore

/// One event of the page's event stream (`/api/events`): `value` (`{"accessory":"<id>","iid":10,
/// "value":"true"}`, the value as its state topic carries it), `availability` (`{"accessory":…,
/// "reachable":false,"reason":"…"}`), `accessories` (the list changed: reload it), `log` (a log line).
struct PageEvent: Sendable {
    var name: String
    var json: String

    /// The events for one batch of the store's changes.
    static func events(for changes: [HomeChange]) -> [PageEvent] {
        var events: [PageEvent] = []
        var listChanged = false
        for change in changes {
            switch change {
            case .valueChanged(let address, let value, _):
                events.append(PageEvent(name: "value", json: JSONText.value([
                    "accessory": address.accessory.description, "iid": address.iid,
                    "value": value.map { $0.mqttPayload as Any } ?? NSNull(),
                ])))
            case .reachabilityChanged(let id, let reachable, let reason):
                events.append(PageEvent(name: "availability", json: JSONText.value([
                    "accessory": id.description, "reachable": reachable,
                    "reason": reachable ? NSNull() : (reason ?? "unreachable") as Any,
                ])))
            case .accessoryAdded, .accessoryRemoved, .accessoryUpdated:
                listChanged = true
            }
        }
        if listChanged { events.append(PageEvent(name: "accessories", json: "{}")) }
        return events
    }
}
