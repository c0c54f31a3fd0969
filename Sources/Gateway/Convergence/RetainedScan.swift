import HomeModel
import MQTT
internal import Foundation

/// What the broker held retained under the gateway's topics (everything under the base topic, and Home
/// Assistant's discovery configs) when the gateway last looked: the payload of each topic.
struct RetainedScan {
    /// One accessory of a `bridge/accessories` list the broker still held: what the last run published.
    struct ListedAccessory: Hashable {
        var id: AccessoryID
        var slug: String
        var name: String
    }

    /// The retained payloads, by topic; never empty (an empty retained message is no message).
    let payloads: [String: [UInt8]]

    init(_ messages: [MQTTMessage]) {
        var payloads: [String: [UInt8]] = [:]
        for message in messages where !message.payload.isEmpty { payloads[message.topic] = message.payload }
        self.payloads = payloads
    }

    /// The accessories of the `bridge/accessories` list on `topic` (id, slug and name of each), or none
    /// when it is missing or not such a list.
    func listedAccessories(on topic: String) -> [ListedAccessory] {
        guard let payload = payloads[topic],
            let list = (try? JSONSerialization.jsonObject(with: Data(payload), options: [])) as? [[String: Any]]
        else { return [] }
        return list.compactMap { entry in
            guard let id = (entry["id"] as? String).flatMap(AccessoryID.init), let slug = entry["slug"] as? String else { return nil }
            return ListedAccessory(id: id, slug: slug, name: entry["name"] as? String ?? slug)
        }
    }

    /// The JSON text of the value retained on `topic`, the state topic of a characteristic of `format`, for
    /// the accessory JSON: nil when there is none, or it is not a value of that format (another client
    /// published there).
    func jsonValue(on topic: String, format: CharacteristicFormat) -> String? {
        guard let payload = payloads[topic] else { return nil }
        let text = String(decoding: payload, as: UTF8.self)
        let value: CharacteristicValue
        switch format {
        case .bool:
            guard text == "true" || text == "false" else { return nil }
            value = .bool(text == "true")
        case .uint8, .uint16, .uint32, .uint64, .int:
            if let number = Int64(text) {
                value = .int(number)
            } else if let number = UInt64(text) {
                value = .uint(number)
            } else {
                return nil
            }
        case .float:
            guard let number = Double(text), number.isFinite else { return nil }
            value = .float(number)
        case .string:
            value = .string(text == CharacteristicValue.emptyPayload ? "" : text)
        case .tlv8, .data:
            guard let bytes = text == CharacteristicValue.emptyPayload ? [] : Base64.decode(text) else { return nil }
            value = .data(bytes)
        case .array, .dictionary:
            guard (try? JSONSerialization.jsonObject(with: Data(payload), options: [])) != nil else { return nil }
            value = .json(text)
        }
        return JSONFragment.value(value)
    }
}
