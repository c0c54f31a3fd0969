import HomeModel
import Testing

/// `Characteristic.valueToWrite(for:name:)`, the one place where a command becomes the value to write.
@Suite("Turning a command into the value to write")
struct CommandValueTests {
    @Test("a characteristic without pw refuses every kind of command, naming what was sent")
    func readOnly() throws {
        let temperature = try catalogCharacteristic("11", value: .float(20))
        let commands: [(CommandPayload, String)] = [
            (.text("21"), "current_temperature: cannot write '21', the characteristic is read-only"),
            (.json(.double(21.5)), "current_temperature: cannot write '21.5', the characteristic is read-only"),
            (.value(.float(21)), "current_temperature: cannot write '21', the characteristic is read-only"),
            (.text("bright"), "current_temperature: cannot write 'bright', the characteristic is read-only"),
        ]
        for (command, message) in commands {
            let error = try #require(
                valueError { () throws(ValueError) in
                    try temperature.valueToWrite(for: command, name: "current_temperature")
                })
            #expect(error.rule == .readOnly)
            #expect(error.description == message)
        }
    }

    @Test("text, a JSON scalar and a typed value give the same value in the format's normal form")
    func sameValueEveryWay() throws {
        let target = try catalogCharacteristic("35")
        for command in [
            CommandPayload.text("21"), .text(#""21""#), .json(.int(21)), .json(.string("21")), .value(.int(21)),
        ] {
            #expect(try target.valueToWrite(for: command, name: "target_temperature") == .float(21), "\(command)")
        }
        let brightness = try catalogCharacteristic("8")
        for command in [CommandPayload.text("40.0"), .json(.double(40)), .value(.float(40)), .value(.uint(40))] {
            #expect(try brightness.valueToWrite(for: command, name: "brightness") == .int(40), "\(command)")
        }
        let on = try catalogCharacteristic("25")
        for command in [CommandPayload.text("ON"), .json(.int(1)), .json(.bool(true)), .value(.bool(true))] {
            #expect(try on.valueToWrite(for: command, name: "on") == .bool(true), "\(command)")
        }
    }

    @Test("toggle flips the characteristic's own current value")
    func toggle() throws {
        #expect(
            try catalogCharacteristic("25", value: .bool(true)).valueToWrite(for: .text("toggle"), name: "on")
                == .bool(false))
        #expect(
            try catalogCharacteristic("25", value: .int(0)).valueToWrite(for: .json(.string("Toggle")), name: "on")
                == .bool(true))
        let unread = try catalogCharacteristic("25")
        let unknown = try #require(
            valueError { () throws(ValueError) in try unread.valueToWrite(for: .text("toggle"), name: "on") })
        #expect(unknown.rule == .unknownCurrentValue)
    }

    @Test("a value that parses is still checked against the characteristic's rules")
    func parsedThenChecked() throws {
        let brightness = try catalogCharacteristic("8")
        let cases: [(CommandPayload, String)] = [
            (.text("150"), "brightness: 150 is above the maximum 100"),
            (.json(.int(-1)), "brightness: -1 is below the minimum 0"),
            (.value(.int(101)), "brightness: 101 is above the maximum 100"),
            (.text("bright"), "brightness: 'bright' is not a valid int value"),
            (.json(.null), "brightness: 'null' is not a valid int value"),
        ]
        for (command, message) in cases {
            let error = try #require(
                valueError { () throws(ValueError) in try brightness.valueToWrite(for: command, name: "brightness") })
            #expect(error.description == message)
        }
        let lock = try catalogCharacteristic("1E")
        #expect(try lock.valueToWrite(for: .text("Secured"), name: "lock_target_state") == .int(1))
        #expect(
            valueError { () throws(ValueError) in try lock.valueToWrite(for: .json(.int(2)), name: "lock_target_state")
            }?.rule == .notAValidValue([0, 1]))
    }
}
