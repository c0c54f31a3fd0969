import Foundation
import JSON
import Testing

@testable import HomeModel

@Suite("Parsing /set payloads")
struct ValueParsingTests {
    @Test(
        "bool takes true/false, 1/0 and on/off in any case",
        arguments: [
            ("true", true), ("TRUE", true), ("1", true), ("on", true), ("On", true), (" ON\n", true),
            ("false", false), ("False", false), ("0", false), ("off", false), ("OFF", false),
        ])
    func bools(_ text: String, _ expected: Bool) throws {
        let on = try catalogCharacteristic("25")
        #expect(try on.parseCommand(text, current: nil, name: "on") == .bool(expected))
    }

    @Test("toggle flips the current value and needs one")
    func toggle() throws {
        let on = try catalogCharacteristic("25")
        #expect(try on.parseCommand("toggle", current: .bool(true), name: "on") == .bool(false))
        #expect(try on.parseCommand("Toggle", current: .int(0), name: "on") == .bool(true))
        let error = try #require(
            valueError { () throws(ValueError) in try on.parseCommand("toggle", current: nil, name: "on") })
        #expect(error.rule == .unknownCurrentValue)
        #expect(error.description == "on: 'toggle' needs the current value, which is not known yet")
    }

    @Test("bool refuses other words and numbers", arguments: ["yes", "2", "", "truee", "1.5"])
    func badBools(_ text: String) throws {
        let on = try catalogCharacteristic("25")
        let error = try #require(
            valueError { () throws(ValueError) in try on.parseCommand(text, current: .bool(false), name: "on") })
        #expect(error.rule == .wrongType(expected: .bool))
        #expect(error.description == "on: '\(text)' is not a valid bool value")
    }

    @Test("white space around a payload is ignored as Foundation's whitespacesAndNewlines would trim it")
    func surroundingWhiteSpace() throws {
        let brightness = try catalogCharacteristic("8")
        let spaces = ["", " ", "\t", "\r\n", "\u{A0}", "\u{85}", "\u{2028}", "\u{3000}", " \u{202F}\n"]
        for before in spaces {
            for after in spaces {
                let text = before + "42" + after
                #expect(text.trimmingCharacters(in: .whitespacesAndNewlines) == "42")
                #expect(
                    try brightness.parseCommand(text, current: nil, name: "brightness") == .int(42),
                    "\(Array(text.unicodeScalars))")
            }
        }
        // Inner white space stays, so the value is refused.
        #expect(throws: ValueError.self) { try brightness.parseCommand(" 4 2 ", current: nil, name: "brightness") }
        #expect(throws: ValueError.self) { try brightness.parseCommand(" \u{A0}\n", current: nil, name: "brightness") }
        let name = Characteristic(
            iid: 1, type: try hapType("23"), format: .string, permissions: [.pairedRead, .pairedWrite])
        #expect(try name.parseCommand(" Desk\u{2028}", current: nil, name: "name") == .string(" Desk\u{2028}"))
    }

    @Test("integer formats take JSON numbers and numeric text")
    func integers() throws {
        let brightness = try catalogCharacteristic("8")
        #expect(try brightness.parseCommand("42", current: nil, name: "brightness") == .int(42))
        #expect(try brightness.parseCommand("  42 \n", current: nil, name: "brightness") == .int(42))
        #expect(try brightness.parseCommand("42.0", current: nil, name: "brightness") == .int(42))
        #expect(try brightness.parseCommand("-5", current: nil, name: "brightness") == .int(-5))
        #expect(try brightness.parseCommand("1e2", current: nil, name: "brightness") == .int(100))
        let wide = Characteristic(
            iid: 1, type: try hapType("E863F10A-079E-48FF-8F27-9C2605A29F52"), format: .uint64,
            permissions: [.pairedRead, .pairedWrite])
        #expect(try wide.parseCommand("18446744073709551615", current: nil, name: "x") == .uint(UInt64.max))
    }

    @Test(
        "numbers refuse fractions for integers, hexadecimal, infinities and words",
        arguments: ["42.5", "0x10", "inf", "nan", "", "abc", "4 2", "--1"])
    func badIntegers(_ text: String) throws {
        let brightness = try catalogCharacteristic("8")
        let error = try #require(
            valueError { () throws(ValueError) in try brightness.parseCommand(text, current: nil, name: "brightness") })
        #expect(error.rule == .wrongType(expected: .int))
        #expect(error.description.hasPrefix("brightness: '\(text)' is not a valid int value"))
    }

    @Test(
        "a number whose text does not survive reading is refused with the reason, for floats and integers",
        arguments: [
            ("1e-400", ValueError.NumberLimit.underflow), ("-2.5e-999", .underflow), ("1e400", .overflow),
            ("-1e999", .overflow), ("\"1e-400\"", .underflow),
        ])
    func unrepresentableNumbers(_ text: String, _ limit: ValueError.NumberLimit) throws {
        for (type, name) in [("13", "hue"), ("8", "brightness")] {
            let characteristic = try catalogCharacteristic(type)
            let error = try #require(
                valueError { () throws(ValueError) in try characteristic.parseCommand(text, current: nil, name: name) })
            #expect(error.rule == .unrepresentable(limit))
            let expected =
                limit == .underflow
                ? "too close to zero for a number: it would be written as 0" : "too large for a number"
            #expect(error.description.hasPrefix("\(name): \(text) is \(expected)"), "\(error)")
        }
    }

    @Test("zero written with an exponent or many zeros is still zero")
    func zeroes() throws {
        let hue = try catalogCharacteristic("13")
        for text in ["0e-400", "0.000e5", "-0.0", "0E999"] {
            #expect(try hue.parseCommand(text, current: nil, name: "hue") == .float(0), "\(text)")
        }
    }

    @Test("float takes any finite number")
    func floats() throws {
        let target = try catalogCharacteristic("35")
        #expect(try target.parseCommand("21.5", current: nil, name: "target_temperature") == .float(21.5))
        #expect(try target.parseCommand(" 21 ", current: nil, name: "target_temperature") == .float(21))
        #expect(try target.parseCommand("2.15e1", current: nil, name: "target_temperature") == .float(21.5))
        #expect(throws: ValueError.self) { try target.parseCommand("warm", current: nil, name: "target_temperature") }
        #expect(throws: ValueError.self) { try target.parseCommand("-inf", current: nil, name: "target_temperature") }
    }

    @Test(
        "enumerations take the integer or the valid-value name in any case",
        arguments: [
            ("1E", "secured", 1), ("1E", "SECURED", 1), ("1E", "Unsecured", 0), ("1E", "1", 1),
            ("33", "heat", 1), ("33", "Cool", 2), ("33", "AUTO", 3), ("33", "off", 0),
            ("28", "counter-clockwise", 1), ("28", "COUNTER_CLOCKWISE", 1), ("28", "clockwise", 0),
            ("1C", "secured physically, exterior", 2), ("D1", "Program scheduled (manual mode)", 2),
        ])
    func enumerations(_ short: String, _ text: String, _ expected: Int64) throws {
        let c = try catalogCharacteristic(short)
        #expect(try c.parseCommand(text, current: nil, name: "x") == .int(expected))
    }

    @Test("an unknown enumeration name names the valid values")
    func badEnumerationName() throws {
        let lock = try catalogCharacteristic("1E")
        let error = try #require(
            valueError { () throws(ValueError) in
                try lock.parseCommand("open sesame", current: nil, name: "lock_target_state")
            })
        #expect(error.rule == .notAValidName(["unsecured (0)", "secured (1)"]))
        #expect(
            error.description
                == "lock_target_state: 'open sesame' is not one of the valid values unsecured (0), secured (1)")
    }

    @Test("an accessory's own valid values bound what the names may pick")
    func accessoryValidValues() throws {
        var mode = try catalogCharacteristic("33")
        mode.validValues = [0, 1]
        let error = try #require(
            valueError { () throws(ValueError) in try mode.parseCommand("sideways", current: nil, name: "mode") })
        #expect(error.rule == .notAValidName(["off (0)", "heat (1)"]), "only the names of the accessory's values")
        let vendor = Characteristic(
            iid: 1, type: try hapType("E863F10A-079E-48FF-8F27-9C2605A29F52"), format: .uint8,
            permissions: [.pairedWrite], validValues: [0, 2])
        #expect(try vendor.parseCommand("2", current: nil, name: "x") == .int(2))
        #expect(
            valueError { () throws(ValueError) in try vendor.parseCommand("two", current: nil, name: "x") }?.rule
                == .wrongType(expected: .uint8))
    }

    @Test("strings keep the raw text; tlv8 and data take base64")
    func textAndBytes() throws {
        let name = try catalogCharacteristic("E3")
        #expect(
            try name.parseCommand("  Kitchen Lamp ", current: nil, name: "configured_name")
                == .string("  Kitchen Lamp "))
        #expect(try name.parseCommand("", current: nil, name: "configured_name") == .string(""))
        let control = try catalogCharacteristic("143")
        #expect(try control.parseCommand("AQID", current: nil, name: "transition_control") == .data([1, 2, 3]))
        #expect(try control.parseCommand(" AQID\n", current: nil, name: "transition_control") == .data([1, 2, 3]))
        let error = try #require(
            valueError { () throws(ValueError) in
                try control.parseCommand("not base64!", current: nil, name: "transition_control")
            })
        #expect(error.description == "transition_control: 'not base64!' is not a valid tlv8 value")
    }

    @Test(
        "a JSON string literal is read as its content for bools, numbers and enumerations",
        arguments: [
            ("35", #""21.5""#, CharacteristicValue.float(21.5)), ("35", " \"21.5\"\n", .float(21.5)),
            ("35", #"" 2.15e1 ""#, .float(21.5)), ("8", #""42""#, .int(42)), ("8", #""\u0034\u0032""#, .int(42)),
            ("25", #""on""#, .bool(true)), ("25", #""TRUE""#, .bool(true)), ("25", #""0""#, .bool(false)),
            ("33", #""heat""#, .int(1)), ("33", #""2""#, .int(2)), ("1E", #""Secured""#, .int(1)),
        ])
    func quotedPayloads(_ short: String, _ text: String, _ expected: CharacteristicValue) throws {
        let c = try catalogCharacteristic(short)
        #expect(try c.parseCommand(text, current: nil, name: "x") == expected)
    }

    @Test("a quoted toggle flips the current value")
    func quotedToggle() throws {
        let on = try catalogCharacteristic("25")
        #expect(try on.parseCommand(#""toggle""#, current: .bool(true), name: "on") == .bool(false))
    }

    @Test(
        "a quoted payload that is not a value names the payload as sent",
        arguments: [
            #""warm""#, #""""#, #""21.5"#, #""\"21.5\"""#, #""21\x""#,
        ])
    func badQuotedPayloads(_ text: String) throws {
        let target = try catalogCharacteristic("35")
        let error = try #require(
            valueError { () throws(ValueError) in
                try target.parseCommand(text, current: nil, name: "target_temperature")
            })
        #expect(error.rule == .wrongType(expected: .float))
        #expect(error.description == "target_temperature: '\(text)' is not a valid float value")
    }

    @Test("a quoted unknown enumeration name names the valid values")
    func badQuotedEnumerationName() throws {
        let lock = try catalogCharacteristic("1E")
        let error = try #require(
            valueError { () throws(ValueError) in
                try lock.parseCommand(#""ajar""#, current: nil, name: "lock_target_state")
            })
        #expect(
            error.description
                == #"lock_target_state: '"ajar"' is not one of the valid values unsecured (0), secured (1)"#)
    }

    @Test("strings keep the quotes as raw text; tlv8, data and JSON formats are not unquoted")
    func quotedTextStaysRaw() throws {
        let name = try catalogCharacteristic("E3")
        #expect(try name.parseCommand(#""Kitchen""#, current: nil, name: "configured_name") == .string(#""Kitchen""#))
        let control = try catalogCharacteristic("143")
        #expect(throws: ValueError.self) {
            try control.parseCommand(#""AQID""#, current: nil, name: "transition_control")
        }
        let list = Characteristic(
            iid: 1, type: try hapType("E863F10A-079E-48FF-8F27-9C2605A29F52"), format: .array,
            permissions: [.pairedWrite])
        #expect(try list.parseCommand(#""[1]""#, current: nil, name: "x") == .json(#""[1]""#))
    }

    @Test("JSON scalars from a multi-write follow the same rules")
    func jsonScalars() throws {
        let on = try catalogCharacteristic("25")
        #expect(try on.parseCommand(json: .bool(true), current: nil, name: "on") == .bool(true))
        #expect(try on.parseCommand(json: .int(0), current: nil, name: "on") == .bool(false))
        #expect(try on.parseCommand(json: .string("toggle"), current: .bool(false), name: "on") == .bool(true))
        #expect(
            valueError { () throws(ValueError) in try on.parseCommand(json: .int(2), current: nil, name: "on") }?.rule
                == .wrongType(expected: .bool))
        #expect(
            valueError { () throws(ValueError) in try on.parseCommand(json: .null, current: nil, name: "on") }?
                .description == "on: 'null' is not a valid bool value")

        let brightness = try catalogCharacteristic("8")
        #expect(try brightness.parseCommand(json: .int(50), current: nil, name: "brightness") == .int(50))
        #expect(try brightness.parseCommand(json: .double(50), current: nil, name: "brightness") == .int(50))
        #expect(try brightness.parseCommand(json: .string("50"), current: nil, name: "brightness") == .int(50))
        #expect(throws: ValueError.self) {
            try brightness.parseCommand(json: .string(#""50""#), current: nil, name: "brightness")
        }
        #expect(throws: ValueError.self) {
            try brightness.parseCommand(json: .double(50.5), current: nil, name: "brightness")
        }
        #expect(throws: ValueError.self) {
            try brightness.parseCommand(json: .bool(true), current: nil, name: "brightness")
        }

        let target = try catalogCharacteristic("35")
        #expect(try target.parseCommand(json: .int(21), current: nil, name: "t") == .float(21))
        #expect(try target.parseCommand(json: .double(21.5), current: nil, name: "t") == .float(21.5))
        let lock = try catalogCharacteristic("1E")
        #expect(try lock.parseCommand(json: .string("Secured"), current: nil, name: "lock") == .int(1))
        #expect(try lock.parseCommand(json: .uint(0), current: nil, name: "lock") == .int(0))
        let name = try catalogCharacteristic("E3")
        #expect(
            valueError { () throws(ValueError) in try name.parseCommand(json: .int(5), current: nil, name: "n") }?.rule
                == .wrongType(expected: .string))
    }

    @Test("JSON values of a multi-write payload keep booleans apart from 0 and 1 and integers exact")
    func payloadScalars() throws {
        let text =
            #"{"t":true,"f":false,"one":1,"zero":0,"half":1.5,"s":"on","n":null,"big":18446744073709551615,"neg":-7,"list":[1]}"#
        let object = try JSONValue(parsing: text)
        #expect(object["t"] == .bool(true))
        #expect(object["f"] == .bool(false))
        #expect(object["one"] == .int(1))
        #expect(object["zero"] == .int(0))
        #expect(object["half"] == .double(1.5))
        #expect(object["s"] == .string("on"))
        #expect(object["n"] == .null)
        #expect(object["big"] == .uint(UInt64.max))
        #expect(object["neg"] == .int(-7))
        let on = try catalogCharacteristic("25")
        let brightness = try catalogCharacteristic("8")
        #expect(try on.parseCommand(json: #require(object["t"]), current: nil, name: "on") == .bool(true))
        #expect(try on.parseCommand(json: #require(object["zero"]), current: nil, name: "on") == .bool(false))
        #expect(throws: ValueError.self) {
            try brightness.parseCommand(json: #require(object["t"]), current: nil, name: "brightness")
        }
        let list = try #require(
            valueError { () throws(ValueError) in
                try brightness.parseCommand(json: [1], current: nil, name: "brightness")
            })
        #expect(list.description == "brightness: '[1]' is not a valid int value")
    }
}
