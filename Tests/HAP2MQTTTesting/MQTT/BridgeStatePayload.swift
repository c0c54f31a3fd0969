import Foundation
public import MQTT

extension MQTTMessage {
    /// The `state` of a `bridge/state` payload (`online`, `offline`), whether it carries the gateway's
    /// claim on the base topic (`"claim"`, `"instance"`, …) or not; nil for any other payload.
    public var bridgeState: String? { bridgeStateFields?["state"] as? String }

    /// The `claim` of a `bridge/state` payload (`held`, `released`); nil when it carries none.
    public var bridgeClaim: String? { bridgeStateFields?["claim"] as? String }

    /// The `instance` of a `bridge/state` payload's claim; nil when it carries none.
    public var bridgeInstance: String? { bridgeStateFields?["instance"] as? String }

    private var bridgeStateFields: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any]
    }
}

/// The `state` of a `bridge/state` payload given as text (a retained snapshot's), nil for none or another
/// payload.
public func bridgeStateField(_ payload: String?) -> String? {
    payload.flatMap { MQTTMessage(topic: "bridge/state", string: $0, qos: .atMostOnce, retain: true).bridgeState }
}
