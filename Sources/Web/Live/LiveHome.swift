internal import Foundation
import HomeModel
import HomeStore

/// What the web page shows beside the store's own values: why an accessory is unreachable and when its
/// last event came, kept from the store's changes (`HomeStore.subscribe()`), which `WebPage.run()`
/// hands to `apply(_:)` before they go to the page's event streams.
actor LiveHome {
    private var reasons: [AccessoryID: String] = [:]
    private var lastEvents: [AccessoryID: Date] = [:]

    /// Starts from a subscription's snapshot: the unreachable accessories and their reasons.
    func start(unreachable: [AccessoryID: String]) {
        reasons = unreachable
    }

    /// Takes one batch of changes.
    func apply(_ changes: [HomeChange], at time: Date) {
        for change in changes {
            switch change {
            case .valueChanged(let address, _, let source) where source == .event:
                lastEvents[address.accessory] = time
            case .reachabilityChanged(let id, let reachable, let reason):
                reasons[id] = reachable ? nil : (reason ?? "unreachable")
            case .accessoryRemoved(let accessory):
                reasons[accessory.id] = nil
                lastEvents[accessory.id] = nil
            default: break
            }
        }
    }

    /// Why `id` is unreachable; nil when it is reachable or nothing was said.
    func reason(_ id: AccessoryID) -> String? { reasons[id] }

    /// When `id`'s last event came; nil when none came since the start.
    func lastEvent(_ id: AccessoryID) -> Date? { lastEvents[id] }
}
