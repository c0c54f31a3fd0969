import JSON
import Testing

@Suite("Typed members of stored JSON objects")
struct JSONFieldsTests {
    static let object: JSONValue = [
        "host": "lamp.local", "port": 51826, "big": 70000, "negative": -1, "fraction": 1.5, "huge": 1e30,
        "flag": true, "nothing": .null, "when": 1_800_000_000,
    ]

    @Test("each member reads as its type")
    func reads() throws {
        let fields = try JSONFields(Self.object)
        #expect(try fields.string("host") == "lamp.local")
        #expect(try fields.integer("port", as: UInt16.self) == 51826)
        #expect(try fields.bool("flag"))
        #expect(try fields.double("when") == 1_800_000_000)
        #expect(try fields.optionalString("nothing") == nil)
        #expect(try fields.optionalString("absent") == nil)
    }

    @Test(
        "a member that is missing, null, of another type or too large names itself, not its value",
        arguments: [
            ("absent", JSONFieldError.missing("absent"), #"no "absent""#),
            ("nothing", .missing("nothing"), #"no "nothing""#),
            ("host", .wrongType("host"), #""host" has the wrong type"#),
            ("fraction", .wrongType("fraction"), #""fraction" has the wrong type"#),
            ("big", .outOfRange("big"), #""big" is out of range"#),
            ("negative", .outOfRange("negative"), #""negative" is out of range"#),
            ("huge", .outOfRange("huge"), #""huge" is out of range"#),
        ] as [(String, JSONFieldError, String)])
    func refusals(key: String, error: JSONFieldError, line: String) throws {
        let fields = try JSONFields(Self.object)
        #expect(throws: error) { try fields.integer(key, as: UInt16.self) }
        #expect(error.description == line)
    }

    @Test("a string member of another type, and a value that is not an object, are refused")
    func wrongShapes() throws {
        #expect(throws: JSONFieldError.wrongType("port")) { try JSONFields(Self.object).string("port") }
        #expect(throws: JSONFieldError.wrongType("flag")) { try JSONFields(Self.object).optionalString("flag") }
        #expect(throws: JSONFieldError.wrongType("host")) { try JSONFields(Self.object).bool("host") }
        #expect(throws: JSONFieldError.notAnObject) { try JSONFields(["a", "b"]) }
        #expect(JSONFieldError.invalid("seed", reason: "not base64").description == #""seed": not base64"#)
    }
}
