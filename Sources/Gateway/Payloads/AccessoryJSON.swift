import JSON

/// The accessory's JSON message (`<base>/<accessory>`, docs/DESIGN.md "Topics"): its fixed parts, built once
/// per layout, and the JSON text of each value published so far. Every value change republishes the
/// message; escaping the slugs anew each time cost more than the rest of it (hap2mqtt-bench latency).
struct AccessoryJSON: Sendable {
    private struct Part: Sendable {
        /// `"<slug>":`, escaped.
        let key: String
        /// Where its value is in `values`.
        let slot: Int
    }

    /// `<base>/<accessory>`.
    let topic: String
    /// Per service with a stateful characteristic: its key and its characteristics, in order.
    private let services: [(key: String, characteristics: [Part])]
    private let slotByIID: [Int: Int]
    /// The JSON text of each characteristic's last published value, by slot.
    private var values: [String?]
    /// The keys' length plus room for short values, to allocate the text once.
    private let capacity: Int

    init(layout: AccessoryLayout, topics: TopicScheme) {
        topic = topics.accessory(layout.slug)
        var slots: [Int: Int] = [:]
        var services: [(key: String, characteristics: [Part])] = []
        for service in layout.services {
            var parts: [Part] = []
            for c in service.characteristics where !c.isStateless {
                parts.append(Part(key: JSONString.quoted(c.slug) + ":", slot: slots.count))
                slots[c.address.iid] = slots.count
            }
            if !parts.isEmpty { services.append((JSONString.quoted(service.slug) + ":", parts)) }
        }
        self.services = services
        slotByIID = slots
        values = Array(repeating: nil, count: slots.count)
        capacity = services.reduce(2) { sum, service in
            service.characteristics.reduce(sum + service.key.utf8.count + 3) { $0 + $1.key.utf8.count + 8 }
        }
    }

    /// Records the JSON text of a characteristic's value (`CharacteristicValue.jsonText`).
    mutating func set(_ json: String, iid: Int) {
        if let slot = slotByIID[iid] { values[slot] = json }
    }

    /// `{"<service>":{"<characteristic>":value,…},…}` with the values recorded so far; a service
    /// without any is left out.
    func render() -> String {
        var out = "{"
        out.reserveCapacity(capacity)
        var firstService = true
        for service in services {
            var firstValue = true
            for part in service.characteristics {
                guard let value = values[part.slot] else { continue }
                if firstValue {
                    if !firstService { out += "," }
                    out += service.key
                    out += "{"
                    firstService = false
                    firstValue = false
                } else {
                    out += ","
                }
                out += part.key
                out += value
            }
            if !firstValue { out += "}" }
        }
        out += "}"
        return out
    }
}
