import JSON
import Testing

/// The examples of RFC 8259 and the cases it leaves to the implementation, each with the answer
/// `JSONValue` gives (JSONValue+Parsing.swift documents them).
@Suite("JSON known answers")
struct JSONKnownAnswerTests {
    @Test("RFC 8259 §13: the image object reads with every member and writes back compact in order")
    func imageExample() throws {
        let text = """
            {
              "Image": {
                  "Width":  800,
                  "Height": 600,
                  "Title":  "View from 15th Floor",
                  "Thumbnail": {
                      "Url":    "http://www.example.com/image/481989943",
                      "Height": 125,
                      "Width":  100
                  },
                  "Animated" : false,
                  "IDs": [116, 943, 234, 38793]
                }
            }
            """
        let v = try JSONValue(parsing: text)
        #expect(v["Image"]?["Width"] == 800)
        #expect(v["Image"]?["Thumbnail"]?["Url"] == "http://www.example.com/image/481989943")
        #expect(v["Image"]?["Animated"] == false)
        #expect(v["Image"]?["IDs"] == [116, 943, 234, 38793])
        #expect(
            v.description
                == #"{"Image":{"Width":800,"Height":600,"Title":"View from 15th Floor","Thumbnail":{"Url":"http://www.example.com/image/481989943","Height":125,"Width":100},"Animated":false,"IDs":[116,943,234,38793]}}"#
        )
    }

    @Test("RFC 8259 §13: the array of two places keeps its doubles")
    func placesExample() throws {
        let text = """
            [
              {
                 "precision": "zip",
                 "Latitude":  37.7668,
                 "Longitude": -122.3959,
                 "Address":   "",
                 "City":      "SAN FRANCISCO",
                 "State":     "CA",
                 "Zip":       "94107",
                 "Country":   "US"
              },
              {
                 "precision": "zip",
                 "Latitude":  37.371991,
                 "Longitude": -122.026020,
                 "Address":   "",
                 "City":      "SUNNYVALE",
                 "State":     "CA",
                 "Zip":       "94085",
                 "Country":   "US"
              }
            ]
            """
        let v = try JSONValue(parsing: text)
        #expect(v.arrayValue?.count == 2)
        #expect(v[0]?["Latitude"] == .double(37.7668))
        #expect(v[1]?["Longitude"] == .double(-122.02602))
        #expect(v[1]?["Zip"] == "94085")
        #expect(v[0]?["Address"] == "")
        #expect(
            v[1]?.objectValue?.keys == [
                "precision", "Latitude", "Longitude", "Address", "City", "State", "Zip", "Country",
            ])
    }

    @Test(
        "RFC 8259 §13: a text may be a lone string, number or literal",
        arguments: [
            (#""Hello world!""#, JSONValue.string("Hello world!")), ("42", .int(42)), ("true", .bool(true)),
            ("null", .null),
        ])
    func scalarTexts(_ text: String, _ expected: JSONValue) throws {
        #expect(try JSONValue(parsing: text) == expected)
        #expect(expected.description == text)
    }

    @Test("RFC 8259 §7: escapes, also of a character outside the Basic Multilingual Plane")
    func stringEscapes() throws {
        #expect(try JSONValue(parsing: #""\u005C""#) == "\\")
        #expect(try JSONValue(parsing: #""\uD834\uDD1E""#) == "\u{1D11E}")
        #expect(try JSONValue(parsing: #""\u00e9""#) == "é")
        #expect(JSONValue.string("\u{1D11E}").description == "\"\u{1D11E}\"")
    }

    @Test(
        "integers are exact to the ends of Int64 and UInt64; beyond, they are doubles",
        arguments: [
            ("9007199254740993", JSONValue.int(9_007_199_254_740_993)),
            ("-9223372036854775808", .int(Int64.min)), ("9223372036854775807", .int(Int64.max)),
            ("9223372036854775808", .uint(9_223_372_036_854_775_808)), ("18446744073709551615", .uint(UInt64.max)),
            ("18446744073709551616", .double(0x1p64)), ("-9223372036854775809", .double(-0x1p63)),
            ("100000000000000000000000000000", .double(1e29)),
        ])
    func integers(_ text: String, _ expected: JSONValue) throws {
        let v = try JSONValue(parsing: text)
        #expect(v == expected)
        if case .double = expected { return }
        #expect(v.description == text, "an exact integer writes back digit for digit")
    }

    @Test("-0 is the integer 0; -0.0 is a negative zero double, written 0")
    func negativeZero() throws {
        #expect(try JSONValue(parsing: "-0") == .int(0))
        let d = try #require(try JSONValue(parsing: "-0.0").doubleValue)
        #expect(d == 0 && d.sign == .minus)
        #expect(JSONValue.double(-0.0).description == "0")
        #expect(try JSONValue(parsing: "-0e0") == .double(-0.0))
    }

    @Test("1e400 and its negative are refused; 1e-400 reads as 0; NaN and Infinity are not JSON")
    func outOfRange() throws {
        #expect(throws: JSONError(.numberOutOfRange, at: 0)) { try JSONValue(parsing: "1e400") }
        #expect(throws: JSONError(.numberOutOfRange, at: 0)) { try JSONValue(parsing: "-1E+400") }
        #expect(try JSONValue(parsing: "1e-400") == .double(0))
        #expect(throws: JSONError.self) { try JSONValue(parsing: "NaN") }
        #expect(throws: JSONError.self) { try JSONValue(parsing: "Infinity") }
        #expect(try JSONValue(parsing: "1.7976931348623157e308") == .double(.greatestFiniteMagnitude))
    }

    @Test("a key given twice: the last one counts")
    func duplicateKeys() throws {
        let v = try JSONValue(parsing: #"{"on":true,"on":false}"#)
        #expect(v["on"] == false)
        #expect(v.objectValue?.dictionary == ["on": false])
        var o = try #require(v.objectValue)
        o["on"] = true
        #expect(o.members.map(\.value) == [true, true], "setting replaces the last one")
    }

    @Test("nesting 10,000 deep is an error, not a stack overflow")
    func deepNesting() throws {
        let arrays = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONError(.tooDeep(limit: 128), at: 128)) { try JSONValue(parsing: arrays) }
        let objects = String(repeating: #"{"a":"#, count: 10_000) + "1" + String(repeating: "}", count: 10_000)
        #expect(throws: JSONError(.tooDeep(limit: 128), at: 128 * 5)) { try JSONValue(parsing: objects) }
        let deepest = String(repeating: #"{"a":["#, count: 64) + String(repeating: "]}", count: 64)
        #expect(try JSONValue(parsing: deepest).objectValue != nil, "128 levels are fine")
    }

    @Test(
        "bytes that are not UTF-8 are refused, in a string and outside",
        arguments: [
            ([0x22, 0xFF, 0x22], JSONError(.invalidUTF8, at: 0)),
            ([0x5B, 0x22, 0xC0, 0x80, 0x22, 0x5D], JSONError(.invalidUTF8, at: 1)),  // an overlong NUL
            ([0x22, 0xED, 0xA0, 0x80, 0x22], JSONError(.invalidUTF8, at: 0)),  // a surrogate in UTF-8
            ([0x22, 0xE2, 0x82, 0x22], JSONError(.invalidUTF8, at: 0)),  // cut short
            ([0xFF], JSONError(.unexpectedByte(0xFF, expected: "a value"), at: 0)),
            ([0x5B, 0x31, 0xC3, 0xA9, 0x5D], JSONError(.unexpectedByte(0xC3, expected: "',' or ']'"), at: 2)),
        ] as [([UInt8], JSONError)])
    func invalidUTF8(_ bytes: [UInt8], _ error: JSONError) {
        #expect(throws: error) { try JSONValue(parsing: bytes) }
    }

    @Test("NUL: escaped it is a character of the string and writes back escaped; raw it is refused")
    func nul() throws {
        let v = try JSONValue(parsing: #""a\u0000b""#)
        #expect(v == .string("a\u{0}b"))
        #expect(v.description == #""a\u0000b""#)
        #expect(throws: JSONError(.controlCharacterInString, at: 2)) {
            try JSONValue(parsing: [0x22, 0x61, 0x00, 0x62, 0x22])
        }
        #expect(throws: JSONError(.unexpectedByte(0x00, expected: "a value"), at: 1)) {
            try JSONValue(parsing: [0x5B, 0x00, 0x5D])
        }
        #expect(throws: JSONError(.trailingData, at: 2)) { try JSONValue(parsing: [0x31, 0x20, 0x00]) }
    }

    @Test("a UTF-8 byte order mark before the value is skipped")
    func byteOrderMark() throws {
        #expect(try JSONValue(parsing: "\u{FEFF}{\"a\":1}") == ["a": 1])
        #expect(try JSONValue(parsing: [0xEF, 0xBB, 0xBF, 0x20, 0x34, 0x32]) == 42)
    }

    @Test("reading from bytes and from text gives the same value")
    func bytesAndText() throws {
        let text = #"{"characteristics":[{"aid":1,"iid":10,"value":"Küche"}]}"#
        #expect(try JSONValue(parsing: Array(text.utf8)) == JSONValue(parsing: text))
        #expect(try JSONValue(parsing: Array(text.utf8)[...]) == JSONValue(parsing: text))
    }
}
