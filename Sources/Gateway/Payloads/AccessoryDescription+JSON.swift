import HomeModel

extension AccessoryDescription {
    /// `bridge/accessories`: the JSON array of every accessory, keys sorted (for stable diffs), slashes
    /// not escaped: the document `JSONEncoder` makes of the `Encodable` conformance, written directly
    /// into one string. `JSONEncoder`'s tree of boxed values for a home of 10,000 characteristics took
    /// more memory than the rest of the gateway (hap2mqtt-bench memory).
    public static func json(_ entries: [AccessoryDescription]) -> String {
        var out = ""
        writeArray(entries, to: &out) { $0.writeJSON(to: &$1) }
        return out
    }

    private func writeJSON(to out: inout String) {
        var members = JSONMembers(&out)
        members.add("firmware", firmware.map(JSONFragment.string), to: &out)
        members.add("home", home.map(JSONFragment.string), to: &out)
        members.add("id", JSONFragment.string(id), to: &out)
        members.add("manufacturer", manufacturer.map(JSONFragment.string), to: &out)
        members.add("model", model.map(JSONFragment.string), to: &out)
        members.add("name", JSONFragment.string(name), to: &out)
        members.add("reachable", reachable ? "true" : "false", to: &out)
        members.add("room", room.map(JSONFragment.string), to: &out)
        members.add("serial", serial.map(JSONFragment.string), to: &out)
        members.key("services", to: &out)
        AccessoryDescription.writeArray(services, to: &out) { $0.writeJSON(to: &$1) }
        members.add("slug", JSONFragment.string(slug), to: &out)
        members.add("topic", JSONFragment.string(topic), to: &out)
        out += "}"
    }

    fileprivate static func writeArray<T>(_ items: [T], to out: inout String, _ write: (T, inout String) -> Void) {
        out += "["
        for (index, item) in items.enumerated() {
            if index > 0 { out += "," }
            write(item, &out)
        }
        out += "]"
    }
}

extension AccessoryDescription.ServiceEntry {
    fileprivate func writeJSON(to out: inout String) {
        var members = JSONMembers(&out)
        members.key("characteristics", to: &out)
        AccessoryDescription.writeArray(characteristics, to: &out) { $0.writeJSON(to: &$1) }
        members.add("iid", String(iid), to: &out)
        members.add("name", name.map(JSONFragment.string), to: &out)
        members.add("primary", primary ? "true" : "false", to: &out)
        members.add("slug", JSONFragment.string(slug), to: &out)
        members.add("type", JSONFragment.string(type), to: &out)
        out += "}"
    }
}

extension AccessoryDescription.CharacteristicEntry {
    fileprivate func writeJSON(to out: inout String) {
        var members = JSONMembers(&out)
        members.add("format", JSONFragment.string(format), to: &out)
        members.add("iid", String(iid), to: &out)
        members.add("max", max.map(CharacteristicValue.format), to: &out)
        members.add("max_length", max_length.map { String($0) }, to: &out)
        members.add("min", min.map(CharacteristicValue.format), to: &out)
        members.add("name", name.map(JSONFragment.string), to: &out)
        members.add("perms", "[" + perms.map(JSONFragment.string).joined(separator: ",") + "]", to: &out)
        members.add("slug", JSONFragment.string(slug), to: &out)
        members.add("step", step.map(CharacteristicValue.format), to: &out)
        members.add("topic", JSONFragment.string(topic), to: &out)
        members.add("type", JSONFragment.string(type), to: &out)
        members.add("unit", unit.map(JSONFragment.string), to: &out)
        if let valid_values {
            members.key("valid_values", to: &out)
            var values = JSONMembers(&out)
            for (name, value) in valid_values.sorted(by: { $0.key < $1.key }) { values.add(name, String(value), to: &out) }
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

    init(_ out: inout String) { out += "{" }

    /// `"key":`, after a comma unless it is the first member.
    mutating func key(_ key: String, to out: inout String) {
        if !empty { out += "," }
        empty = false
        out += JSONFragment.string(key)
        out += ":"
    }

    /// `"key":json`, unless `json` is nil.
    mutating func add(_ key: String, _ json: String?, to out: inout String) {
        guard let json else { return }
        self.key(key, to: &out)
        out += json
    }
}
