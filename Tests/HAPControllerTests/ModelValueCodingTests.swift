import HAPController
import HomeModel
import JSON
import Testing

@Suite("Characteristic values in HAP JSON")
struct ModelValueCodingTests {
    func decode(_ json: String, _ format: CharacteristicFormat) throws -> CharacteristicValue? {
        try CharacteristicValue.decoded(fromHAP: JSONValue(parsing: json), format: format)
    }

    @Test(
        "accessories' loose types read as the format says",
        arguments: [
            ("true", CharacteristicFormat.bool, CharacteristicValue.bool(true)), ("0", .bool, .bool(false)),
            ("1.0", .bool, .bool(true)),
            (#""false""#, .bool, .bool(false)), ("42", .uint8, .int(42)), ("21.0", .uint8, .int(21)),
            ("20.6", .int, .int(21)),
            ("true", .uint8, .int(1)), (#""17""#, .uint16, .int(17)),
            ("18446744073709551615", .uint64, .uint(UInt64.max)),
            ("-5", .int, .int(-5)), ("21", .float, .float(21)), ("21.5", .float, .float(21.5)),
            (#""21.5""#, .float, .float(21.5)),
            (#""Kitchen""#, .string, .string("Kitchen")), ("12", .string, .string("12")),
            (#""AQID""#, .tlv8, .data([1, 2, 3])),
            (#""""#, .data, .data([])), ("[1,{\"a\":null}]", .array, .json("[1,{\"a\":null}]")),
        ])
    func decodes(_ json: String, _ format: CharacteristicFormat, _ expected: CharacteristicValue) throws {
        #expect(try decode(json, format) == expected)
    }

    @Test("a string longer than HAP allows by far is refused, up to 4096 bytes it is taken")
    func overlongString() throws {
        let longest = String(repeating: "é", count: CharacteristicValue.maximumHAPStringBytes / 2)
        #expect(try decode("\"\(longest)\"", .string) == .string(longest))
        #expect(throws: HAPModelError.valueMismatch(format: .string, value: "a text of 3000000 bytes")) {
            try decode("\"" + String(repeating: "a", count: 3_000_000) + "\"", .string)
        }
    }

    @Test("null is no value")
    func null() throws {
        #expect(try decode("null", .uint8) == nil)
        #expect(try decode("null", .bool) == nil)
    }

    @Test(
        "values a format cannot carry are refused",
        arguments: [
            ("2", CharacteristicFormat.bool), (#""yes""#, .bool), (#""abc""#, .uint8), ("[1]", .int), ("{}", .float),
            (#""%%%""#, .data), ("5", .tlv8), ("[]", .string), ("1e300", .int),
        ])
    func refuses(_ json: String, _ format: CharacteristicFormat) throws {
        let value = try JSONValue(parsing: json)
        #expect(throws: HAPModelError.valueMismatch(format: format, value: value.description)) {
            try CharacteristicValue.decoded(fromHAP: value, format: format)
        }
    }

    @Test(
        "values are written as the format needs",
        arguments: [
            (CharacteristicValue.bool(true), CharacteristicFormat.bool, "true"), (.int(1), .bool, "true"),
            (.int(0), .bool, "false"),
            (.int(50), .uint8, "50"), (.float(50), .int, "50"), (.bool(true), .uint8, "1"),
            (.uint(UInt64.max), .uint64, "18446744073709551615"),
            (.float(21.5), .float, "21.5"), (.int(21), .float, "21"), (.string("Desk"), .string, #""Desk""#),
            (.int(7), .string, #""7""#),
            (.data([1, 2, 3]), .tlv8, #""AQID""#), (.string("AQID"), .data, #""AQID""#),
            (.json(#"{"a": [1, 2]}"#), .dictionary, #"{"a":[1,2]}"#),
        ])
    func encodes(_ value: CharacteristicValue, _ format: CharacteristicFormat, _ json: String) throws {
        #expect(try JSONValue(encoding: value, format: format).description == json)
    }

    @Test(
        "values that do not fit the format are not written",
        arguments: [
            (CharacteristicValue.int(2), CharacteristicFormat.bool), (.string("on"), .bool), (.float(21.5), .int),
            (.string("5"), .uint8),
            (.float(.nan), .float), (.data([1]), .string), (.string("not base64!"), .tlv8), (.json("{"), .dictionary),
            (.int(1), .array),
        ])
    func refusesToEncode(_ value: CharacteristicValue, _ format: CharacteristicFormat) {
        #expect(throws: HAPModelError.valueMismatch(format: format, value: value.description)) {
            try JSONValue(encoding: value, format: format)
        }
    }
}
