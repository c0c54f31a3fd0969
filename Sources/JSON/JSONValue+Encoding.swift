extension JSONValue: CustomStringConvertible {
    /// The value as compact JSON: no white space between tokens, strings as UTF-8 escaped by `JSONString`,
    /// object members in their order, or sorted by key (byte order of their UTF-8, as Foundation's
    /// `JSONEncoder` sorts) when `sortingKeys` is set. Tado bridges accept only the compact form
    /// (aiohomekit hkjson.py `dump_bytes`; docs/hap-notes.md §4.1), e.g.
    /// `{"characteristics":[{"aid":2,"iid":15,"ev":true}]}`.
    ///
    /// Numbers are written as `numberText(_:)` writes them: a non-finite double, which JSON cannot carry,
    /// as `null`.
    public func encoded(sortingKeys: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        write(to: &out, sortingKeys: sortingKeys)
        return out
    }

    /// The compact JSON text of `encoded()`.
    public var description: String { String(decoding: encoded(), as: UTF8.self) }

    /// Appends the compact JSON of `encoded(sortingKeys:)` to `out`.
    public func write(to out: inout [UInt8], sortingKeys: Bool = false) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let i): out.append(contentsOf: String(i).utf8)
        case .uint(let u): out.append(contentsOf: String(u).utf8)
        case .double(let d): out.append(contentsOf: Self.numberText(d).utf8)
        case .string(let s): JSONString.append(s, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, e) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                e.write(to: &out, sortingKeys: sortingKeys)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            let members =
                sortingKeys
                ? object.members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) } : object.members
            for (i, m) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONString.append(m.key, to: &out)
                out.append(UInt8(ascii: ":"))
                m.value.write(to: &out, sortingKeys: sortingKeys)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A double as JSON number text: whole values below 10^15 without a fraction (`21`, `0` also for
    /// -0.0), others in the shortest form that reads back exactly (`21.5`, `1e-07`, `1e+20`); NaN and the
    /// infinities, which JSON cannot carry, as `null`.
    public static func numberText(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
