import JSON

/// The accessory's JSON message (`<base>/<accessory>`, docs/DESIGN.md "Topics"): its fixed parts, built once
/// per layout as UTF-8 bytes, and the JSON text of each value published so far. Every batch that changes a
/// value republishes the message, rendered once for the batch straight into the payload's bytes: escaping
/// the slugs anew each time, or building a `String` and copying it into a payload, cost more than the rest
/// of it (hap2mqtt-bench latency and command, Benchmarks/README.md).
struct AccessoryJSON: Sendable {
    private struct Part: Sendable {
        /// `"<slug>":`, escaped, in UTF-8.
        let key: [UInt8]
        /// Where its value is in `values`.
        let slot: Int
    }

    /// `<base>/<accessory>`.
    let topic: String
    /// Per service with a stateful characteristic: its key (`"<slug>":{`) and its characteristics, in order.
    private let services: [(key: [UInt8], characteristics: [Part])]
    private let slotByIID: [Int: Int]
    /// The JSON text of each characteristic's last published value, by slot (most fit a small string,
    /// which needs no allocation of its own).
    private var values: [String?]
    /// The keys' length plus room for short values, to allocate the payload once.
    private let capacity: Int

    init(layout: AccessoryLayout, topics: TopicScheme) {
        topic = topics.accessory(layout.slug)
        var slots: [Int: Int] = [:]
        var services: [(key: [UInt8], characteristics: [Part])] = []
        for service in layout.services {
            var parts: [Part] = []
            for c in service.characteristics where !c.isStateless {
                parts.append(Part(key: Array((JSONString.quoted(c.slug) + ":").utf8), slot: slots.count))
                slots[c.address.iid] = slots.count
            }
            if !parts.isEmpty { services.append((Array((JSONString.quoted(service.slug) + ":{").utf8), parts)) }
        }
        self.services = services
        slotByIID = slots
        values = Array(repeating: nil, count: slots.count)
        capacity = services.reduce(2) { sum, service in
            service.characteristics.reduce(sum + service.key.count + 2) { $0 + $1.key.count + 8 }
        }
    }

    /// Records the JSON text of a characteristic's value (`CharacteristicValue.jsonText`).
    mutating func set(_ json: String, iid: Int) {
        if let slot = slotByIID[iid] { values[slot] = json }
    }

    /// `{"<service>":{"<characteristic>":value,…},…}` in UTF-8, with the values recorded so far; a
    /// service without any is left out.
    func render() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(capacity)
        out.append(UInt8(ascii: "{"))
        var firstService = true
        for service in services {
            var firstValue = true
            for part in service.characteristics {
                guard let value = values[part.slot] else { continue }
                if firstValue {
                    if !firstService { out.append(UInt8(ascii: ",")) }
                    out.append(contentsOf: service.key)
                    firstService = false
                    firstValue = false
                } else {
                    out.append(UInt8(ascii: ","))
                }
                out.append(contentsOf: part.key)
                out.append(contentsOf: value.utf8)
            }
            if !firstValue { out.append(UInt8(ascii: "}")) }
        }
        out.append(UInt8(ascii: "}"))
        return out
    }
}
