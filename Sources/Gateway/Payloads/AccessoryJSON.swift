import JSON

/// The accessory's JSON message (`<base>/<accessory>`, docs/DESIGN.md "Topics"): its fixed parts, built once
/// per layout as UTF-8 bytes, and the JSON text of each value published so far. Every batch that changes a
/// value republishes the message, rendered once for the batch straight into the payload's bytes: escaping
/// the slugs anew each time, or building a `String` and copying it into a payload, cost more than the rest
/// of it (hap2mqtt-bench latency and command, Benchmarks/README.md). The keys sit in one byte buffer and
/// the layout in arrays of plain integers, so that rendering retains and releases nothing but the values
/// (hap2mqtt-bench fanout).
struct AccessoryJSON: Sendable {
    /// A characteristic: where its key (`"<slug>":`, escaped) is in `keys`, and its value in `values`.
    private struct Part: Sendable {
        let keyStart: Int
        let keyEnd: Int
        let slot: Int
    }

    /// A service with a stateful characteristic: where its key (`"<slug>":{`) is in `keys`, and its
    /// characteristics in `parts`.
    private struct Group: Sendable {
        let keyStart: Int
        let keyEnd: Int
        let partsStart: Int
        let partsEnd: Int
    }

    /// `<base>/<accessory>`.
    let topic: String
    /// Every key, in UTF-8, one after the other.
    private let keys: [UInt8]
    private let groups: [Group]
    /// The characteristics of every service, in order.
    private let parts: [Part]
    private let slotByIID: [Int: Int]
    /// The JSON text of each characteristic's last published value, by slot (most fit a small string,
    /// which needs no allocation of its own).
    private var values: [String?]
    /// The keys' length plus room for short values, to allocate the payload once.
    private let capacity: Int

    init(layout: AccessoryLayout, topics: TopicScheme) {
        topic = topics.accessory(layout.slug)
        var keys: [UInt8] = []
        var groups: [Group] = []
        var parts: [Part] = []
        var slots: [Int: Int] = [:]
        for service in layout.services {
            let serviceKey = Array((JSONString.quoted(service.slug) + ":{").utf8)
            let partsStart = parts.count
            let serviceKeyStart = keys.count
            keys += serviceKey
            for c in service.characteristics where !c.isStateless {
                let start = keys.count
                keys += Array((JSONString.quoted(c.slug) + ":").utf8)
                parts.append(Part(keyStart: start, keyEnd: keys.count, slot: slots.count))
                slots[c.address.iid] = slots.count
            }
            if parts.count > partsStart {
                groups.append(
                    Group(
                        keyStart: serviceKeyStart, keyEnd: serviceKeyStart + serviceKey.count, partsStart: partsStart,
                        partsEnd: parts.count))
            } else {
                keys.removeLast(serviceKey.count)
            }
        }
        self.keys = keys
        self.groups = groups
        self.parts = parts
        slotByIID = slots
        values = Array(repeating: nil, count: slots.count)
        capacity = 2 + keys.count + 2 * groups.count + 8 * parts.count
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
        keys.withUnsafeBufferPointer { keys in
            groups.withUnsafeBufferPointer { groups in
                parts.withUnsafeBufferPointer { parts in
                    values.withUnsafeBufferPointer { values in
                        var firstService = true
                        for group in groups {
                            var firstValue = true
                            for part in parts[group.partsStart..<group.partsEnd] {
                                guard let value = values[part.slot] else { continue }
                                if firstValue {
                                    if !firstService { out.append(UInt8(ascii: ",")) }
                                    out.append(contentsOf: keys[group.keyStart..<group.keyEnd])
                                    firstService = false
                                    firstValue = false
                                } else {
                                    out.append(UInt8(ascii: ","))
                                }
                                out.append(contentsOf: keys[part.keyStart..<part.keyEnd])
                                out.append(contentsOf: value.utf8)
                            }
                            if !firstValue { out.append(UInt8(ascii: "}")) }
                        }
                    }
                }
            }
        }
        out.append(UInt8(ascii: "}"))
        return out
    }
}
