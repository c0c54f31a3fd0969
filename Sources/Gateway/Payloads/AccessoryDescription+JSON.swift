// swift-format-ignore-file: AlwaysUseLowerCamelCase
// Why: valid_values is the accessory JSON's field name.

import HomeModel
import JSON

extension AccessoryDescription {
    /// `bridge/accessories`: the JSON array of every accessory, keys sorted (for stable diffs), slashes
    /// not escaped: the document `JSONEncoder` makes of the `Encodable` conformance, written directly.
    /// `JSONEncoder`'s tree of boxed values for a home of 10,000 characteristics took more memory than
    /// the rest of the gateway (hap2mqtt-bench memory); `ListWriter` writes one entry at a time.
    public static func json(_ entries: [AccessoryDescription]) -> String {
        var writer = ListWriter()
        for entry in entries { writer.append(entry) }
        return String(decoding: writer.finish(), as: UTF8.self)
    }

    /// Writes the `bridge/accessories` array as UTF-8, one entry at a time, so that no list of entries
    /// and no `String` copy of the document exist beside the bytes that become the MQTT payload
    /// (2.5 MB for 10,000 characteristics).
    public struct ListWriter {
        private var out = JSONBytes()
        private var count = 0

        /// - Parameter capacity: bytes to reserve, e.g. the size of the previous document.
        public init(reservingCapacity capacity: Int = 0) {
            out.bytes.reserveCapacity(capacity)
            out += "["
        }

        /// Adds one accessory's entry.
        public mutating func append(_ entry: AccessoryDescription) {
            if count > 0 { out += "," }
            count += 1
            entry.writeJSON(to: &out)
        }

        /// The finished document.
        public consuming func finish() -> [UInt8] {
            out += "]"
            return out.bytes
        }
    }

    private func writeJSON(to out: inout JSONBytes) {
        var members = JSONMembers(&out)
        members.add("firmware", string: firmware, to: &out)
        members.add("home", string: home, to: &out)
        members.add("id", string: id, to: &out)
        members.add("manufacturer", string: manufacturer, to: &out)
        members.add("model", string: model, to: &out)
        members.add("name", string: name, to: &out)
        members.add("offline_reason", string: offline_reason, to: &out)
        if let options {
            members.key("options", to: &out)
            var fields = JSONMembers(&out)
            fields.add("exclude", options.exclude.map { $0 ? "true" : "false" }, to: &out)
            fields.add("name", string: options.name, to: &out)
            fields.add("room", string: options.room, to: &out)
            out += "}"
        }
        members.add("reachable", reachable ? "true" : "false", to: &out)
        members.add("room", string: room, to: &out)
        members.add("serial", string: serial, to: &out)
        members.key("services", to: &out)
        AccessoryDescription.writeArray(services, to: &out) { $0.writeJSON(to: &$1) }
        members.add("slug", string: slug, to: &out)
        members.add("topic", string: topic, to: &out)
        out += "}"
    }

    fileprivate static func writeArray<T>(_ items: [T], to out: inout JSONBytes, _ write: (T, inout JSONBytes) -> Void)
    {
        out += "["
        for (index, item) in items.enumerated() {
            if index > 0 { out += "," }
            write(item, &out)
        }
        out += "]"
    }
}

extension AccessoryDescription.ServiceEntry {
    fileprivate func writeJSON(to out: inout JSONBytes) {
        var members = JSONMembers(&out)
        members.key("characteristics", to: &out)
        AccessoryDescription.writeArray(characteristics, to: &out) { $0.writeJSON(to: &$1) }
        members.add("iid", String(iid), to: &out)
        members.add("name", string: name, to: &out)
        members.add("primary", primary ? "true" : "false", to: &out)
        members.add("slug", string: slug, to: &out)
        members.add("type", string: type, to: &out)
        out += "}"
    }
}

extension AccessoryDescription.CharacteristicEntry {
    fileprivate func writeJSON(to out: inout JSONBytes) {
        var members = JSONMembers(&out)
        members.add("format", string: format, to: &out)
        members.add("iid", String(iid), to: &out)
        members.add("max", max.map(CharacteristicValue.format), to: &out)
        members.add("max_length", max_length.map { String($0) }, to: &out)
        members.add("min", min.map(CharacteristicValue.format), to: &out)
        members.add("name", string: name, to: &out)
        members.key("perms", to: &out)
        AccessoryDescription.writeArray(perms, to: &out) { JSONString.append($0, to: &$1.bytes) }
        members.add("slug", string: slug, to: &out)
        members.add("step", step.map(CharacteristicValue.format), to: &out)
        members.add("topic", string: topic, to: &out)
        members.add("type", string: type, to: &out)
        members.add("unit", string: unit, to: &out)
        if let valid_values {
            members.key("valid_values", to: &out)
            var values = JSONMembers(&out)
            for (name, value) in valid_values.sorted(by: { $0.key < $1.key }) {
                values.add(name, String(value), to: &out)
            }
            out += "}"
        }
        out += "}"
    }
}

/// The members of one JSON object being written: opens it, and puts commas between members. Callers
/// add members in sorted key order and close the object with `}`; nil values are left out, as the
/// synthesized `Encodable` conformance leaves out nil optionals.
private struct JSONMembers {
    private var empty = true

    init(_ out: inout JSONBytes) { out += "{" }

    /// `"key":`, after a comma unless it is the first member.
    mutating func key(_ key: String, to out: inout JSONBytes) {
        if !empty { out += "," }
        empty = false
        JSONString.append(key, to: &out.bytes)
        out += ":"
    }

    /// `"key":"value"` with `value` escaped as a JSON string, unless it is nil.
    mutating func add(_ key: String, string value: String?, to out: inout JSONBytes) {
        guard let value else { return }
        self.key(key, to: &out)
        JSONString.append(value, to: &out.bytes)
    }

    /// `"key":json`, unless `json` is nil.
    mutating func add(_ key: String, _ json: String?, to out: inout JSONBytes) {
        guard let json else { return }
        self.key(key, to: &out)
        out += json
    }
}

/// UTF-8 bytes of a JSON document being written; `+=` appends text.
struct JSONBytes {
    var bytes: [UInt8] = []

    static func += (out: inout JSONBytes, text: String) { out.bytes.append(contentsOf: text.utf8) }
}
