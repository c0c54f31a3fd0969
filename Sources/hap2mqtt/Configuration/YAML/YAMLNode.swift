import JSON

/// A position in a YAML text, 1-based (libyaml counts from 0; people and editors count from 1).
struct YAMLMark: Sendable, Hashable, CustomStringConvertible {
    /// The line, from 1.
    var line: Int
    /// The column, from 1, in Unicode scalars as libyaml counts them.
    var column: Int

    var description: String { "\(line):\(column)" }
}

/// How a scalar was written (YAML 1.2 §7.3, §8.1). Only plain scalars can mean null, a number or a
/// boolean without the reader being told; quoted and block scalars are always text.
enum YAMLScalarStyle: Sendable, Hashable {
    case plain, singleQuoted, doubleQuoted, literal, folded

    /// True for `plain`: the only style whose text YAML resolves to null, booleans and numbers.
    var isPlain: Bool { self == .plain }
}

/// One node of a YAML document: a scalar (its text and style), a sequence, or a mapping whose entries
/// keep the order and position they were written in. Mapping keys are scalars; duplicate keys are kept
/// (the reader of the tree decides what a duplicate means).
struct YAMLNode: Sendable, Hashable {
    /// A mapping's entry: the key's text and position, and the value.
    struct Entry: Sendable, Hashable {
        var key: String
        var keyMark: YAMLMark
        var value: YAMLNode
    }

    /// What the node holds.
    enum Content: Sendable, Hashable {
        case scalar(String, YAMLScalarStyle)
        case sequence([YAMLNode])
        case mapping([Entry])
    }

    var content: Content
    /// Where the node starts.
    var mark: YAMLMark

    init(_ content: Content, at mark: YAMLMark) {
        self.content = content
        self.mark = mark
    }

    /// A plain scalar's text as YAML's core schema reads null: empty, `~`, `null`, `Null`, `NULL`
    /// (YAML 1.2 §10.3.2).
    var isNull: Bool {
        guard case .scalar(let text, .plain) = content else { return false }
        return ["", "~", "null", "Null", "NULL"].contains(text)
    }

    /// The scalar's text, or nil for sequences and mappings.
    var scalarText: String? {
        guard case .scalar(let text, _) = content else { return nil }
        return text
    }

    /// The first entry with `key`, when this is a mapping.
    func entry(_ key: String) -> Entry? {
        guard case .mapping(let entries) = content else { return nil }
        return entries.first { $0.key == key }
    }

    /// What a user would call this kind of node in an error message: `a list`, `a mapping`, or the
    /// scalar's text as a JSON string.
    var kindDescription: String {
        switch content {
        case .scalar(let text, _): return text.jsonQuoted
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        }
    }
}
