import HAPController
import Testing

@Suite("HAP JSON encoding")
struct JSONEncodingTests {
    @Test("bodies are written compact, in member order, exactly as Tado bridges need")
    func compact() {
        let body: HAPJSON = ["characteristics": [["aid": 2, "iid": 15, "ev": true]]]
        #expect(body.description == #"{"characteristics":[{"aid":2,"iid":15,"ev":true}]}"#)
        #expect(body.encoded() == Array(#"{"characteristics":[{"aid":2,"iid":15,"ev":true}]}"#.utf8))
    }

    @Test("every kind of value is written as JSON")
    func kinds() {
        let v: HAPJSON = [.null, false, .int(-5), .uint(UInt64.max), 21.5, 20.0, 1e-7, "x", [], [:]]
        #expect(v.description == #"[null,false,-5,18446744073709551615,21.5,20,1e-07,"x",[],{}]"#)
        #expect(HAPJSON.double(.infinity).description == "null")
        #expect(HAPJSON.double(.nan).description == "null")
    }

    @Test("strings escape quotes, backslashes and control characters and keep other text as UTF-8")
    func strings() {
        let v = HAPJSON.string("a\"b\\c\n\r\t\u{1}\u{1F} é😀/")
        #expect(v.description == #""a\"b\\c\n\r\t\u0001\u001f é😀/""#)
    }

    @Test("encoding then parsing gives the same value back")
    func roundTrip() throws {
        let v: HAPJSON = [
            "aid": .uint(UInt64.max), "iid": .int(Int64.min), "value": 0.1, "text": "Küche \u{7F}\u{0}",
            "list": [true, .null, ["deep": [1, 2, 3]]],
        ]
        #expect(try HAPJSON(parsing: v.encoded()) == v)
    }

    @Test("object members can be set, replaced and removed by key")
    func objectEditing() {
        var o: HAPJSONObject = ["aid": 1, "iid": 2]
        o["value"] = true
        o["aid"] = 3
        o["iid"] = nil
        #expect(HAPJSON.object(o).description == #"{"aid":3,"value":true}"#)
        #expect(o.keys == ["aid", "value"])
    }
}
