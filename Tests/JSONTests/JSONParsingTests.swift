import JSON
import Testing

@Suite("JSON parsing")
struct JSONParsingTests {
    @Test("integers beyond 2^53 stay exact as Int64 and UInt64")
    func exactIntegers() throws {
        let v = try JSONValue(
            parsing:
                "[18446744073709551615, 9007199254740993, -9223372036854775808, 9223372036854775807, 9223372036854775808, -0]"
        )
        #expect(
            v == [
                .uint(UInt64.max), .int(9_007_199_254_740_993), .int(Int64.min), .int(Int64.max),
                .uint(9_223_372_036_854_775_808), .int(0),
            ])
        #expect(v[1]?.int64Value == 9_007_199_254_740_993)
        #expect(v[0]?.uint64Value == UInt64.max)
        #expect(v[0]?.int64Value == nil)
    }

    @Test("integers beyond 64 bits and numbers with a fraction or exponent are doubles")
    func doubles() throws {
        let v = try JSONValue(parsing: "[18446744073709551616, -9223372036854775809, 21.5, 1e3, -2.5E-2, 0.0]")
        #expect(v == [.double(0x1p64), .double(-0x1p63), .double(21.5), .double(1000), .double(-0.025), .double(0)])
    }

    @Test("a HAP body reads into nested objects with member order kept")
    func hapBody() throws {
        let v = try JSONValue(
            parsing:
                #"{"characteristics":[{"aid":1,"iid":10,"value":true},{"iid":11,"aid":2,"value":null,"status":-70402}]}"#
        )
        let items = try #require(v["characteristics"]?.arrayValue)
        #expect(items.count == 2)
        #expect(items[0]["value"] == .bool(true))
        #expect(items[1].objectValue?.keys == ["iid", "aid", "value", "status"])
        #expect(items[1]["value"]?.isNull == true)
        #expect(items[1]["status"]?.intValue == -70402)
    }

    @Test("trailing commas in arrays and objects are tolerated (Netatmo)")
    func trailingCommas() throws {
        #expect(try JSONValue(parsing: "[1,2,]") == [1, 2])
        #expect(try JSONValue(parsing: #"{"a":1,}"#) == ["a": 1])
        #expect(
            try JSONValue(parsing: #"{"accessories":[{"aid":1,"services":[],},],}"#) == [
                "accessories": [["aid": 1, "services": []]]
            ])
        #expect(try JSONValue(parsing: "[ 1 , \n ]") == [1])
    }

    @Test("escapes and \\u sequences, including surrogate pairs, decode to the right text")
    func escapes() throws {
        #expect(try JSONValue(parsing: #""a\"b\\c\/d\b\f\n\r\t""#) == .string("a\"b\\c/d\u{8}\u{C}\n\r\t"))
        #expect(try JSONValue(parsing: #""\u00e9\u20AC\ud83d\ude00""#) == .string("é€😀"))
        #expect(try JSONValue(parsing: #""Küche 😀""#) == .string("Küche 😀"))
    }

    @Test("a lone surrogate becomes U+FFFD instead of failing the whole body")
    func loneSurrogate() throws {
        #expect(try JSONValue(parsing: #""a\ud83db""#) == .string("a\u{FFFD}b"))
        #expect(try JSONValue(parsing: #""\ude00""#) == .string("\u{FFFD}"))
        #expect(try JSONValue(parsing: #""\ud83d\u0041""#) == .string("\u{FFFD}A"))
    }

    @Test("white space around the value is allowed")
    func whiteSpace() throws {
        #expect(try JSONValue(parsing: " \t\r\n true \n") == true)
    }

    @Test(
        "invalid JSON is refused with the byte offset of the fault",
        arguments: [
            ("", JSONError.Reason.empty, 0),
            ("   ", .empty, 0),
            ("[1,2", .unexpectedEnd, 4),
            ("[1 2]", .unexpectedByte(UInt8(ascii: "2"), expected: "',' or ']'"), 3),
            (#"{"a" 1}"#, .unexpectedByte(UInt8(ascii: "1"), expected: "':'"), 5),
            ("{a:1}", .unexpectedByte(UInt8(ascii: "a"), expected: "a member name in quotes"), 1),
            ("[,]", .unexpectedByte(UInt8(ascii: ","), expected: "a value"), 1),
            ("[1,,2]", .unexpectedByte(UInt8(ascii: ","), expected: "a value"), 3),
            ("{,}", .unexpectedByte(UInt8(ascii: ","), expected: "a member name in quotes"), 1),
            ("01", .invalidNumber, 0),
            ("-", .invalidNumber, 0),
            ("1.", .invalidNumber, 0),
            ("1e", .invalidNumber, 0),
            ("[.5]", .unexpectedByte(UInt8(ascii: "."), expected: "a value"), 1),
            ("1e400", .numberOutOfRange, 0),
            ("tru", .unexpectedEnd, 3),
            ("nul1", .unexpectedByte(UInt8(ascii: "1"), expected: "'null'"), 0),
            (#"  "a\x""#, .invalidEscape, 4),
            (#""\u12G4""#, .invalidEscape, 1),
            ("\"a\nb\"", .controlCharacterInString, 2),
            (#""abc"#, .unexpectedEnd, 4),
            ("1 2", .trailingData, 2),
            ("{} x", .trailingData, 3),
            ("NaN", .unexpectedByte(UInt8(ascii: "N"), expected: "a value"), 0),
            ("[Infinity]", .unexpectedByte(UInt8(ascii: "I"), expected: "a value"), 1),
            ("-Infinity", .invalidNumber, 0),
            ("[1e400]", .numberOutOfRange, 1),
            ("-1e400", .numberOutOfRange, 0),
            ("+1", .unexpectedByte(UInt8(ascii: "+"), expected: "a value"), 0),
            ("0x10", .trailingData, 1),
            ("{'a':1}", .unexpectedByte(UInt8(ascii: "'"), expected: "a member name in quotes"), 1),
            ("[1]]", .trailingData, 3),
            ("\u{FEFF}", .empty, 0),
            (" \u{FEFF}1", .unexpectedByte(0xEF, expected: "a value"), 1),
            ("\u{FEFF}\u{FEFF}1", .unexpectedByte(0xEF, expected: "a value"), 3),
        ])
    func rejects(_ text: String, _ reason: JSONError.Reason, _ offset: Int) {
        #expect(throws: JSONError(reason, at: offset)) { try JSONValue(parsing: text) }
    }

    @Test("bytes that are not UTF-8 inside a string are refused at the string's start")
    func invalidUTF8() {
        let bytes: [UInt8] = Array(#"["ok","#.utf8) + [0x22, 0x61, 0xC3, 0x28, 0x22, 0x5D]
        #expect(throws: JSONError(.invalidUTF8, at: 6)) { try JSONValue(parsing: bytes) }
    }

    @Test("deep nesting is refused at the limit instead of overflowing the stack")
    func deepNesting() throws {
        let deep = String(repeating: "[", count: 100_000)
        #expect(throws: JSONError(.tooDeep(limit: 128), at: 128)) { try JSONValue(parsing: deep) }
        let objects = String(repeating: #"{"a":"#, count: 5000)
        #expect(throws: JSONError.self) { try JSONValue(parsing: objects) }
        let fine = String(repeating: "[", count: 128) + String(repeating: "]", count: 128)
        #expect(try JSONValue(parsing: fine).arrayValue?.count == 1)
        #expect(throws: JSONError(.tooDeep(limit: 3), at: 3)) { try JSONValue(parsing: "[[[[]]]]", maximumDepth: 3) }
    }

    @Test("errors print as one line with the offset")
    func errorText() {
        let e = JSONError(.unexpectedByte(UInt8(ascii: "x"), expected: "',' or '}'"), at: 17)
        #expect(e.description == "invalid JSON at byte 17: expected ',' or '}' but found 'x'")
        #expect(JSONError(.unexpectedByte(0x01, expected: "a value"), at: 0).description.hasSuffix("found byte 0x1"))
    }

    @Test("a repeated key keeps both members; lookup and the dictionary see the last")
    func repeatedKey() throws {
        let v = try JSONValue(parsing: #"{"a":1,"b":0,"a":2}"#)
        #expect(v["a"] == 2)
        #expect(v.objectValue?.count == 3)
        #expect(v.objectValue?.dictionary == ["a": 2, "b": 0])
        #expect(v.description == #"{"a":1,"b":0,"a":2}"#)
    }
}
