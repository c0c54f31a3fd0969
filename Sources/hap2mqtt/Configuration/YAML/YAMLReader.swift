import CYAML

/// Reads one YAML document into a `YAMLNode` tree with libyaml's event parser (`yaml_parser_parse`).
///
/// The configuration needs plain YAML only, so the reader refuses what would make a file hard to read
/// or to report on: anchors and aliases, tags, and more than one document. An empty text (or one with
/// only comments) is an empty mapping.
enum YAMLReader {
    /// Parses `text`, naming it `source` in errors.
    /// - Throws: `YAMLError` with libyaml's problem and position for a syntax error, or the reader's
    ///   own problem for anchors, aliases, tags, several documents and non-text mapping keys.
    static func parse(_ text: String, source: String) throws(YAMLError) -> YAMLNode {
        try parse(Array(text.utf8), source: source)
    }

    /// Parses the bytes of a file (UTF-8, or UTF-16 with a byte order mark, as libyaml reads them),
    /// naming it `source` in errors.
    /// - Throws: `YAMLError` as `parse(_:source:)` does, and for bytes that are not valid UTF-8.
    static func parse(_ bytes: [UInt8], source: String) throws(YAMLError) -> YAMLNode {
        let empty = YAMLNode(.mapping([]), at: YAMLMark(line: 1, column: 1))
        guard !bytes.isEmpty else { return empty }

        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        defer { parser.deallocate() }
        guard yaml_parser_initialize(parser) == 1 else {
            throw YAMLError(source: source, mark: YAMLMark(line: 1, column: 1), problem: "libyaml could not start")
        }
        defer { yaml_parser_delete(parser) }

        let result: Result<YAMLNode?, YAMLError> = bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return .success(nil) }
            yaml_parser_set_input_string(parser, base, buffer.count)
            var builder = TreeBuilder(source: source)
            var event = yaml_event_t()
            while true {
                guard yaml_parser_parse(parser, &event) == 1 else {
                    return .failure(libyamlError(parser.pointee, bytes: buffer, source: source))
                }
                defer { yaml_event_delete(&event) }
                if event.type == YAML_STREAM_END_EVENT { return .success(builder.root) }
                do throws(YAMLError) { try builder.consume(event) } catch { return .failure(error) }
            }
        }
        return try result.get() ?? empty
    }

    /// The error libyaml reported, with its position made 1-based. Reader errors (bad UTF-8) carry a
    /// byte offset instead of a mark, so their line and column are counted here.
    private static func libyamlError(
        _ parser: yaml_parser_t, bytes: UnsafeBufferPointer<UInt8>, source: String
    ) -> YAMLError {
        var problem = parser.problem.map { String(cString: $0) } ?? "unreadable YAML"
        if let context = parser.context.map({ String(cString: $0) }) { problem += " (\(context))" }
        let mark: YAMLMark
        if parser.error == YAML_READER_ERROR {
            mark = position(ofByte: parser.problem_offset, in: bytes)
        } else {
            mark = YAMLMark(line: parser.problem_mark.line + 1, column: parser.problem_mark.column + 1)
        }
        if parser.error == YAML_MEMORY_ERROR { problem = "out of memory" }
        return YAMLError(source: source, mark: mark, problem: problem)
    }

    private static func position(ofByte offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> YAMLMark {
        let prefix = bytes.prefix(min(offset, bytes.count))
        let line = prefix.count { $0 == UInt8(ascii: "\n") } + 1
        let lineStart = prefix.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        return YAMLMark(line: line, column: prefix.count - lineStart + 1)
    }
}

/// Turns libyaml's event stream into nodes: a stack of open collections, each node added to the one
/// on top when it is complete.
private struct TreeBuilder {
    private enum Open {
        case sequence(YAMLMark, [YAMLNode])
        case mapping(YAMLMark, [YAMLNode.Entry], pendingKey: (String, YAMLMark)?)
    }

    let source: String
    private(set) var root: YAMLNode?
    private var stack: [Open] = []
    private var documents = 0

    init(source: String) { self.source = source }

    mutating func consume(_ event: yaml_event_t) throws(YAMLError) {
        let mark = YAMLMark(line: event.start_mark.line + 1, column: event.start_mark.column + 1)
        switch event.type {
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            if documents > 1 { throw error(at: mark, "only one YAML document is allowed") }
        case YAML_ALIAS_EVENT:
            throw error(at: mark, "aliases (*name) are not supported; write the value out")
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            try refuse(anchor: scalar.anchor, tag: scalar.tag, at: mark)
            let text =
                scalar.value.map {
                    String(decoding: UnsafeBufferPointer(start: $0, count: scalar.length), as: UTF8.self)
                } ?? ""
            try add(YAMLNode(.scalar(text, style(scalar.style)), at: mark))
        case YAML_SEQUENCE_START_EVENT:
            try refuse(anchor: event.data.sequence_start.anchor, tag: event.data.sequence_start.tag, at: mark)
            stack.append(.sequence(mark, []))
        case YAML_MAPPING_START_EVENT:
            try refuse(anchor: event.data.mapping_start.anchor, tag: event.data.mapping_start.tag, at: mark)
            stack.append(.mapping(mark, [], pendingKey: nil))
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            switch stack.popLast() {
            case .sequence(let start, let items): try add(YAMLNode(.sequence(items), at: start))
            case .mapping(let start, let entries, _): try add(YAMLNode(.mapping(entries), at: start))
            case nil: break
            }
        default:
            break
        }
    }

    private mutating func add(_ node: YAMLNode) throws(YAMLError) {
        switch stack.popLast() {
        case nil:
            root = node
        case .sequence(let start, var items):
            items.append(node)
            stack.append(.sequence(start, items))
        case .mapping(let start, var entries, let pendingKey):
            if let (key, keyMark) = pendingKey {
                entries.append(YAMLNode.Entry(key: key, keyMark: keyMark, value: node))
                stack.append(.mapping(start, entries, pendingKey: nil))
            } else if let key = node.scalarText {
                stack.append(.mapping(start, entries, pendingKey: (key, node.mark)))
            } else {
                throw error(at: node.mark, "a mapping key must be text, not \(node.kindDescription)")
            }
        }
    }

    private func refuse(
        anchor: UnsafeMutablePointer<yaml_char_t>?, tag: UnsafeMutablePointer<yaml_char_t>?, at mark: YAMLMark
    ) throws(YAMLError) {
        if let anchor {
            throw error(at: mark, "anchors (&\(String(cString: anchor))) are not supported; write the value out")
        }
        if let tag { throw error(at: mark, "tags (\(String(cString: tag))) are not supported") }
    }

    private func style(_ style: yaml_scalar_style_t) -> YAMLScalarStyle {
        switch style {
        case YAML_SINGLE_QUOTED_SCALAR_STYLE: return .singleQuoted
        case YAML_DOUBLE_QUOTED_SCALAR_STYLE: return .doubleQuoted
        case YAML_LITERAL_SCALAR_STYLE: return .literal
        case YAML_FOLDED_SCALAR_STYLE: return .folded
        default: return .plain
        }
    }

    private func error(at mark: YAMLMark, _ problem: String) -> YAMLError {
        YAMLError(source: source, mark: mark, problem: problem)
    }
}
