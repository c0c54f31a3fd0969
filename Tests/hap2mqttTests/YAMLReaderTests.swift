import Testing

@testable import hap2mqtt

@Suite("YAML reader")
struct YAMLReaderTests {
    private func parse(_ text: String) throws -> YAMLNode { try YAMLReader.parse(text, source: "test.yaml") }

    private func failure(_ text: String) -> String? {
        do {
            _ = try YAMLReader.parse(text, source: "test.yaml")
            return nil
        } catch {
            return error.description
        }
    }

    @Test("scalars keep their text, style and 1-based position")
    func scalars() throws {
        let root = try parse(
            """
            plain: 5
            single: '5'
            double: "a\\tb"
            empty:
            tilde: ~
            """)
        let entries = try #require({ if case .mapping(let e) = root.content { e } else { nil } }())
        #expect(entries.map(\.key) == ["plain", "single", "double", "empty", "tilde"])
        #expect(entries[0].value.content == .scalar("5", .plain))
        #expect(entries[1].value.content == .scalar("5", .singleQuoted))
        #expect(entries[2].value.content == .scalar("a\tb", .doubleQuoted))
        #expect(entries[1].keyMark == YAMLMark(line: 2, column: 1))
        #expect(entries[1].value.mark == YAMLMark(line: 2, column: 9))
        #expect(entries[3].value.isNull && entries[4].value.isNull)
        #expect(!entries[1].value.isNull)
    }

    @Test("block and flow collections nest, in the order written")
    func nesting() throws {
        let root = try parse(
            """
            home:
              rooms: [Kitchen, "Living Room"]
              lamps:
                - { name: Lamp, room: Kitchen }
                - name: Spot
            text: |
              two
              lines
            end: 1
            """)
        let home = try #require(root.entry("home")?.value)
        let rooms = try #require(home.entry("rooms")?.value)
        #expect(
            rooms.content
                == .sequence([
                    YAMLNode(.scalar("Kitchen", .plain), at: YAMLMark(line: 2, column: 11)),
                    YAMLNode(.scalar("Living Room", .doubleQuoted), at: YAMLMark(line: 2, column: 20)),
                ]))
        guard case .sequence(let lamps) = home.entry("lamps")?.value.content else {
            Issue.record("lamps is not a sequence")
            return
        }
        #expect(lamps.count == 2)
        #expect(lamps[0].entry("room")?.value.scalarText == "Kitchen")
        #expect(lamps[1].entry("name")?.value.scalarText == "Spot")
        #expect(lamps[1].mark.line == 5)
        #expect(root.entry("text")?.value.content == .scalar("two\nlines\n", .literal))
    }

    @Test("an empty text or one with only comments is an empty mapping")
    func empty() throws {
        #expect(try parse("").content == .mapping([]))
        #expect(try parse("# nothing here\n\n").content == .mapping([]))
    }

    @Test("syntax errors carry the source, libyaml's line and column and its problem text")
    func syntaxErrors() {
        #expect(
            failure("mqtt:\n  url: [a, b\n") == """
                test.yaml:3:1: YAML syntax error: did not find expected ',' or ']' (while parsing a flow sequence)
                """)
        #expect(
            failure("a: b: c\n") == "test.yaml:1:5: YAML syntax error: mapping values are not allowed in this context")
        #expect(
            failure("mqtt:\n\turl: x\n") == """
                test.yaml:2:1: YAML syntax error: found character that cannot start any token (while scanning for the next token)
                """)
    }

    @Test("anchors, aliases, tags, several documents and list keys are refused with their position")
    func refused() {
        #expect(
            failure("a: &x 1\nb: 2\n")
                == "test.yaml:1:4: YAML syntax error: anchors (&x) are not supported; write the value out")
        #expect(failure("a: 1\nb: *x\n")?.hasPrefix("test.yaml:2:4: YAML syntax error:") == true)
        #expect(
            failure("a: !!str 5\n")
                == "test.yaml:1:4: YAML syntax error: tags (tag:yaml.org,2002:str) are not supported")
        #expect(failure("a: 1\n---\nb: 2\n") == "test.yaml:2:1: YAML syntax error: only one YAML document is allowed")
        #expect(
            failure("? [a, b]\n: c\n") == "test.yaml:1:3: YAML syntax error: a mapping key must be text, not a list")
    }

    @Test("a character libyaml cannot read is reported at its line and column")
    func readerError() {
        #expect(
            failure("a: 1\nb: x\u{1}\n") == """
                test.yaml:2:5: YAML syntax error: control characters are not allowed
                """)
    }
}
