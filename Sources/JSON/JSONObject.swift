/// A JSON object whose members keep their order. Equality compares the members in order.
///
/// A key given twice: the last one counts. The parser keeps both members (so reading stays linear in
/// the input, whatever an accessory or an MQTT client sends), and every lookup (`subscript`)
/// sees the last; `dictionary` keeps the last. Setting a key through the subscript replaces its last member.
public struct JSONObject: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    /// One `"key": value` member.
    public struct Member: Sendable, Hashable {
        public var key: String
        public var value: JSONValue

        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The members in order.
    public private(set) var members: [Member]

    /// An object of `members`, in their order.
    public init(_ members: [Member] = []) { self.members = members }

    /// An object literal; member order is the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        members = elements.map { Member(key: $0.0, value: $0.1) }
    }

    /// The value of `key` (the last one when it repeats). Setting replaces the last member with that key,
    /// or appends one; setting nil removes every member with that key.
    public subscript(key: String) -> JSONValue? {
        get { members.last { $0.key == key }?.value }
        set {
            guard let newValue else {
                members.removeAll { $0.key == key }
                return
            }
            if let i = members.lastIndex(where: { $0.key == key }) {
                members[i].value = newValue
            } else {
                members.append(Member(key: key, value: newValue))
            }
        }
    }

    /// The keys in order.
    public var keys: [String] { members.map(\.key) }

    /// The members as a dictionary; of a key given twice, the last value.
    public var dictionary: [String: JSONValue] {
        Dictionary(members.lazy.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    public var startIndex: Int { members.startIndex }
    public var endIndex: Int { members.endIndex }
    public subscript(position: Int) -> Member { members[position] }

    /// Appends a member without looking for an existing one with the same key (the parser's path).
    public mutating func append(_ key: String, _ value: JSONValue) {
        members.append(Member(key: key, value: value))
    }
}
