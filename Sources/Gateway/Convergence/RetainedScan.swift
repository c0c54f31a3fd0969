import HomeModel
import JSON
import MQTT

/// What the broker held retained under the gateway's topics (everything under the base topic, and Home
/// Assistant's discovery configs) when the gateway last looked: every topic, and the payloads the
/// gateway reads again (`keepsPayload(of:base:)`).
struct RetainedScan {
    /// One accessory of a `bridge/accessories` list the broker still held: what the last run published.
    struct ListedAccessory: Hashable {
        var id: AccessoryID
        var slug: String
        var name: String
    }

    /// Every retained topic.
    let topics: Set<String>
    /// The retained payloads kept, by topic; never empty (an empty retained message is no message).
    let payloads: [String: [UInt8]]

    init(_ messages: [MQTTMessage]) {
        var topics = Set<String>(minimumCapacity: messages.count)
        var payloads: [String: [UInt8]] = [:]
        for message in messages where !message.payload.isEmpty || message.droppedPayloadSize != nil {
            topics.insert(message.topic)
            if !message.payload.isEmpty { payloads[message.topic] = message.payload }
        }
        self.topics = topics
        self.payloads = payloads
    }

    /// Whether the scan keeps the payload retained on `topic`, under base topic `base`: only those the
    /// gateway reads again, the last run's `bridge/accessories` and the characteristics' state topics
    /// (`<base>/<accessory>/<service>/<characteristic>`, a camera's snapshot aside). Discovery configs,
    /// accessory JSON and the rest are only cleared or kept, by topic, so a home of thousands of
    /// characteristics costs the scan no more than their topics.
    static func keepsPayload(of topic: String, base: String) -> Bool {
        guard topic.hasPrefix(base + "/") else { return false }
        let rest = topic.dropFirst(base.count + 1)
        if rest == "bridge/accessories" { return true }
        let levels = rest.split(separator: "/", omittingEmptySubsequences: false)
        return levels.count == 3 && levels[0] != "bridge" && levels[2] != "snapshot"
    }

    /// The `node_id` of `topic` when it is a discovery config under `prefix`, per entity
    /// (`<prefix>/<component>/<node_id>/<object_id>/config`) or per device (`<prefix>/device/<node_id>/config`),
    /// else nil.
    static func configNode(of topic: String, prefix: String) -> String? {
        guard topic.hasPrefix(prefix + "/") else { return nil }
        let levels = topic.dropFirst(prefix.count + 1).split(separator: "/", omittingEmptySubsequences: false)
        if levels.count == 3, levels[0] == "device", levels[2] == "config" { return String(levels[1]) }
        return levels.count == 4 && levels[3] == "config" ? String(levels[1]) : nil
    }

    /// The accessories of the `bridge/accessories` list on `topic` (id, slug and name of each), or none
    /// when it is missing or not such a list.
    func listedAccessories(on topic: String) -> [ListedAccessory] {
        guard let payload = payloads[topic], let list = (try? JSONValue(parsing: payload))?.arrayValue else {
            return []
        }
        return list.compactMap { entry in
            guard let id = entry["id"]?.stringValue.flatMap(AccessoryID.init), let slug = entry["slug"]?.stringValue
            else { return nil }
            return ListedAccessory(id: id, slug: slug, name: entry["name"]?.stringValue ?? slug)
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
            // An array or an object, as HAP carries these formats; any other JSON is not such a value.
            guard let json = try? JSONValue(parsing: payload), json.arrayValue != nil || json.objectValue != nil else {
                return nil
            }
            value = .json(text)
        }
        return value.jsonText
    }
}
