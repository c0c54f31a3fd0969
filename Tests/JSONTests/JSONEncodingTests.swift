import JSON
import Testing

@Suite("JSON encoding")
struct JSONEncodingTests {
    @Test("bodies are written compact, in member order, exactly as Tado bridges need")
    func compact() {
        let body: JSONValue = ["characteristics": [["aid": 2, "iid": 15, "ev": true]]]
        #expect(body.description == #"{"characteristics":[{"aid":2,"iid":15,"ev":true}]}"#)
        #expect(body.encoded() == Array(#"{"characteristics":[{"aid":2,"iid":15,"ev":true}]}"#.utf8))
    }

    @Test("every kind of value is written as JSON")
    func kinds() {
        let v: JSONValue = [.null, false, .int(-5), .uint(UInt64.max), 21.5, 20.0, 1e-7, "x", [], [:]]
        #expect(v.description == #"[null,false,-5,18446744073709551615,21.5,20,1e-07,"x",[],{}]"#)
        #expect(JSONValue.double(.infinity).description == "null")
        #expect(JSONValue.double(-.infinity).description == "null")
        #expect(JSONValue.double(.nan).description == "null")
    }

    @Test(
        "doubles are written whole below 10^15 and otherwise in the shortest form that reads back",
        arguments: [
            (0.0, "0"), (-0.0, "0"), (21.0, "21"), (-7.0, "-7"), (21.5, "21.5"), (0.1, "0.1"),
            (1.0 / 3, "0.3333333333333333"),
            (999_999_999_999_999.0, "999999999999999"), (1e15, "1000000000000000.0"), (1e20, "1e+20"), (1e-7, "1e-07"),
            (.leastNonzeroMagnitude, "5e-324"), (Double.greatestFiniteMagnitude, "1.7976931348623157e+308"),
            (123_456_789_012_345_678.0, "1.2345678901234568e+17"),
        ])
    func doubles(_ value: Double, _ text: String) throws {
        #expect(JSONValue.numberText(value) == text)
        #expect(JSONValue.double(value).description == text)
        #expect(try JSONValue(parsing: text).doubleValue == value)
    }

    @Test("keys can be written sorted by their UTF-8 bytes, at every level, as JSONEncoder's sortedKeys did")
    func sortedKeys() {
        let v: JSONValue = [
            "modes": 1, "mode_command_topic": 2, "Mode": 3, "a10": 4, "a2": 5, "_x": 6, "~": 7, "é": 8,
            "e": ["b": 1, "a": 2],
        ]
        #expect(
            String(decoding: v.encoded(sortingKeys: true), as: UTF8.self)
                == #"{"Mode":3,"_x":6,"a10":4,"a2":5,"e":{"a":2,"b":1},"mode_command_topic":2,"modes":1,"~":7,"é":8}"#)
        #expect(v.description.hasPrefix(#"{"modes":1,"mode_command_topic":2,"#))
    }

    @Test("strings escape quotes, backslashes and control characters and keep other text as UTF-8")
    func strings() {
        let v = JSONValue.string("a\"b\\c\n\r\t\u{1}\u{1F}\u{7F}\u{0} é😀/\u{2028}")
        #expect(v.description == #""a\"b\\c\n\r\t\u0001\u001f\u007f\u0000 é😀/\#u{2028}""#)
    }

    @Test("encoding then parsing gives the same value back")
    func roundTrip() throws {
        let v: JSONValue = [
            "aid": .uint(UInt64.max), "iid": .int(Int64.min), "value": 0.1, "text": "Küche \u{7F}\u{0}",
            "list": [true, .null, ["deep": [1, 2, 3]]],
        ]
        #expect(try JSONValue(parsing: v.encoded()) == v)
    }

    @Test("object members can be set, replaced and removed by key")
    func objectEditing() {
        var o: JSONObject = ["aid": 1, "iid": 2]
        o["value"] = true
        o["aid"] = 3
        o["iid"] = nil
        #expect(JSONValue.object(o).description == #"{"aid":3,"value":true}"#)
        #expect(o.keys == ["aid", "value"])
    }
}
